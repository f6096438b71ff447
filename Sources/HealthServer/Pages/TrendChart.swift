import ClinicalRecords
import FHIR
import Foundation

/// Server-rendered SVG charts of a series: no JavaScript; a title, a description and one
/// `<circle class="point">` per result, each with its value as a tooltip. The page puts a table
/// of the same values beside the chart for screen readers.
enum TrendChart {
    /// A full chart with axes labels and the reference-range band.
    static func svg(_ series: TrendSeries, id: String, width: Double = 640, height: Double = 260) -> String {
        let pad = (left: 56.0, right: 16.0, top: 16.0, bottom: 36.0)
        let plot = (w: width - pad.left - pad.right, h: height - pad.top - pad.bottom)
        let scale = Scale(series, width: plot.w, height: plot.h)
        var out = """
            <svg class="trend" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(n(width)) \(n(height))" role="img" \
            aria-labelledby="\(id)-title \(id)-desc" preserveAspectRatio="xMidYMid meet">
            <title id="\(id)-title">\(escape(series.name))</title>
            <desc id="\(id)-desc">\(escape(description(series)))</desc>
            <g transform="translate(\(n(pad.left)) \(n(pad.top)))">
            <rect class="plot" x="0" y="0" width="\(n(plot.w))" height="\(n(plot.h))"/>

            """
        if let band = scale.band(series.range) {
            out += #"<rect class="range" x="0" y="\#(n(band.top))" width="\#(n(plot.w))" height="\#(n(band.height))"><title>Reference range \#(escape(series.range?.text ?? ""))</title></rect>"# + "\n"
        }
        for (value, y) in scale.ticks {
            out += #"<line class="tick" x1="0" x2="\#(n(plot.w))" y1="\#(n(y))" y2="\#(n(y))"/><text class="axis" x="-6" y="\#(n(y + 4))" text-anchor="end">\#(escape(label(value)))</text>"# + "\n"
        }
        if series.points.count > 1 {
            let line = series.points.map { "\(n(scale.x($0.date))),\(n(scale.y($0.value)))" }.joined(separator: " ")
            out += #"<polyline class="line" points="\#(line)"/>"# + "\n"
        }
        for p in series.points {
            let cls = p.flagged ? "point flagged" : "point"
            out += #"<circle class="\#(cls)" cx="\#(n(scale.x(p.date)))" cy="\#(n(scale.y(p.value)))" r="4"><title>\#(escape(day(p.date))): \#(escape(p.text))</title></circle>"# + "\n"
        }
        if let first = series.points.first, let last = series.points.last {
            out += #"<text class="axis" x="0" y="\#(n(plot.h + 22))">\#(escape(day(first.date)))</text>"# + "\n"
            if series.points.count > 1 {
                out += #"<text class="axis" x="\#(n(plot.w))" y="\#(n(plot.h + 22))" text-anchor="end">\#(escape(day(last.date)))</text>"# + "\n"
            }
        }
        return out + "</g>\n</svg>"
    }

    /// A small line without labels, for the summary; decorative beside the numbers it sits with.
    static func sparkline(_ series: TrendSeries, width: Double = 120, height: Double = 32) -> String {
        let scale = Scale(series, width: width - 8, height: height - 8)
        var out = #"<svg class="spark" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(n(width)) \#(n(height))" aria-hidden="true" focusable="false"><g transform="translate(4 4)">"#
        if let band = scale.band(series.range) { out += #"<rect class="range" x="0" y="\#(n(band.top))" width="\#(n(width - 8))" height="\#(n(band.height))"/>"# }
        if series.points.count > 1 {
            out += #"<polyline class="line" points="\#(series.points.map { "\(n(scale.x($0.date))),\(n(scale.y($0.value)))" }.joined(separator: " "))"/>"#
        }
        if let last = series.points.last { out += #"<circle class="point" cx="\#(n(scale.x(last.date)))" cy="\#(n(scale.y(last.value)))" r="2.5"/>"# }
        return out + "</g></svg>"
    }

    /// What the chart shows, for its `<desc>`.
    static func description(_ s: TrendSeries) -> String {
        guard let first = s.points.first, let last = s.points.last else { return "No results." }
        var text = "\(s.points.count) result\(s.points.count == 1 ? "" : "s") from \(day(first.date)) to \(day(last.date))"
        if let lo = s.points.map(\.value).min(), let hi = s.points.map(\.value).max() {
            text += ", between \(label(lo)) and \(label(hi))\(s.unit.map { " " + $0 } ?? "")"
        }
        text += "; the latest is \(last.text)"
        if let r = s.range { text += "; reference range \(r.text)" }
        return text + "."
    }

    /// Maps dates and values into the plot.
    struct Scale {
        let start: Double, span: Double, low: Double, high: Double, width: Double, height: Double

        init(_ s: TrendSeries, width: Double, height: Double) {
            let times = s.points.map { $0.date.timeIntervalSince1970 }
            start = times.min() ?? 0
            span = max((times.max() ?? 0) - start, 1)
            var values = s.points.map(\.value)
            if let r = s.range { values += [r.low, r.high].compactMap { $0 } }
            var lo = values.min() ?? 0, hi = values.max() ?? 1
            if hi - lo < 1e-9 { lo -= 1; hi += 1 }
            let margin = (hi - lo) * 0.08
            low = lo - margin
            high = hi + margin
            self.width = width
            self.height = height
        }

        func x(_ d: Date) -> Double { span <= 1 ? width / 2 : (d.timeIntervalSince1970 - start) / span * width }
        func y(_ v: Double) -> Double { height - (v - low) / (high - low) * height }

        func band(_ r: RecordDetails.Range?) -> (top: Double, height: Double)? {
            guard let r, r.low != nil || r.high != nil else { return nil }
            let top = y(min(r.high ?? high, high)), bottom = y(max(r.low ?? low, low))
            return bottom > top ? (top, bottom - top) : nil
        }

        /// Four gridlines at round values.
        var ticks: [(Double, Double)] {
            let step = Self.niceStep((high - low) / 4)
            var v = (low / step).rounded(.up) * step
            var out: [(Double, Double)] = []
            while v <= high, out.count < 8 {
                out.append((v, y(v)))
                v += step
            }
            return out
        }

        static func niceStep(_ raw: Double) -> Double {
            guard raw > 0, raw.isFinite else { return 1 }
            let magnitude = pow(10, floor(log10(raw)))
            let f = raw / magnitude
            return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude
        }
    }

    static func n(_ v: Double) -> String { String(format: "%.1f", v) }

    static func label(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e9 { return String(Int(v)) }
        return String(format: abs(v) < 10 ? "%.2f" : "%.1f", v)
    }

    static func day(_ d: Date) -> String { PageDates.short(d) }

    static func escape(_ s: String) -> String { XMLText.escape(s) }
}
