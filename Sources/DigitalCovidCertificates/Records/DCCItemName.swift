import CBOR

/// The one-line name of a DCC's entry, as the Health app lists it: what it certifies, named
/// from the EU value sets' displays where the code is a common one.
enum DCCItemName {
    /// Vaccine medicinal products (value set `vaccines-covid-19-names`), the ones most certificates name.
    static let products: [String: String] = [
        "EU/1/20/1528": "Comirnaty", "EU/1/20/1507": "Spikevax", "EU/1/21/1529": "Vaxzevria",
        "EU/1/20/1525": "Jcovden", "EU/1/21/1618": "Nuvaxovid", "EU/1/21/1624": "VLA2001",
        "EU/1/21/1580": "Vidprevtyn Beta", "EU/1/22/1709": "Bimervax", "Sputnik-V": "Sputnik V",
        "BBIBP-CorV": "BBIBP-CorV", "CoronaVac": "CoronaVac", "Covaxin": "Covaxin",
    ]
    /// Test types (value set `covid-19-lab-test-type`).
    static let testTypes: [String: String] = ["LP6464-4": "NAAT (PCR)", "LP217198-3": "rapid antigen test"]
    /// Test results (value set `covid-19-lab-result`).
    static let testResults: [String: String] = ["260415000": "not detected", "260373001": "detected"]

    static func name(kind: DCCKind, entry: CBORValue) -> String {
        switch kind {
        case .vaccination:
            let product = entry["mp"]?.text.map { products[$0] ?? $0 } ?? "vaccine"
            let dose = entry["dn"]?.int64.map { n in entry["sd"]?.int64.map { "dose \(n) of \($0)" } ?? "dose \(n)" }
            return "COVID-19 vaccination: \(product)" + (dose.map { ", \($0)" } ?? "")
        case .test:
            let type = entry["tt"]?.text.map { testTypes[$0] ?? $0 } ?? "test"
            let result = entry["tr"]?.text.map { testResults[$0] ?? $0 }
            return "COVID-19 \(type)" + (result.map { ": \($0)" } ?? "")
        case .recovery:
            let from = entry["df"]?.text
            let until = entry["du"]?.text
            return "Recovery from COVID-19" + (from.map { ", valid \($0)" + (until.map { " to \($0)" } ?? "") } ?? "")
        }
    }
}
