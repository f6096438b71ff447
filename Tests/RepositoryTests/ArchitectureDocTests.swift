import Foundation
import Testing
import TestSupport

/// docs/architecture.md lists every target's dependencies; this reads them and Package.swift and
/// holds them equal, so the map cannot drift from the package again (issue 30 found a diagram with
/// edges that did not exist and two missing).
@Suite struct ArchitectureDocTests {
    static let repository = FixtureFiles.root.deletingLastPathComponent().deletingLastPathComponent()

    /// Each non-test target of Package.swift and the targets of this package it depends on.
    static func packageGraph() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        var graph: [String: Set<String>] = [:]
        var rest = Substring(text)
        while let call = rest.firstRange(of: /\.(target|executableTarget|testTarget|systemLibrary)\(/) {
            let kind = rest[call].dropFirst().prefix { $0 != "(" }
            let body = balanced(rest[rest.index(before: call.upperBound)...])
            rest = rest[call.upperBound...]
            guard kind != "testTarget", let name = body.firstMatch(of: /name:\s*"([^"]+)"/)?.1 else { continue }
            var dependencies: Set<String> = []
            if let list = body.firstRange(of: /dependencies:\s*\[/) {
                let inside = withoutProducts(balanced(body[body.index(before: list.upperBound)...]))
                for match in inside.matches(of: /"([^"]+)"/) { dependencies.insert(String(match.1)) }
            }
            graph[String(name)] = dependencies
        }
        return graph
    }

    /// The text from an opening bracket or parenthesis to its match.
    static func balanced(_ text: Substring) -> Substring {
        var depth = 0
        for i in text.indices {
            switch text[i] {
            case "(", "[": depth += 1
            case ")", "]":
                depth -= 1
                if depth == 0 { return text[...i] }
            default: break
            }
        }
        return text
    }

    /// A dependency list without its `.product(…)` entries (packages from elsewhere).
    static func withoutProducts(_ text: Substring) -> String {
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            if text[i...].hasPrefix(".product(") {
                let call = balanced(text[text.index(i, offsetBy: 8)...])
                i = call.endIndex
                continue
            }
            out.append(text[i])
            i = text.index(after: i)
        }
        return out
    }

    /// The list under "## Every target's dependencies": "- `Name`: `A`, `B`" or "- `Name`: —".
    static func documentedGraph() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Every target's dependencies").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        var graph: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("- `") {
            let parts = line.dropFirst(2).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            let names = parts[1].matches(of: /`([^`]+)`/).map { String($0.1) }
            graph[name] = Set(names)
        }
        return graph
    }

    @Test func theDocumentedDependenciesAreThePackages() throws {
        let package = try Self.packageGraph()
        let documented = try Self.documentedGraph()
        #expect(package.count > 20, "Package.swift was not read: \(package.keys.sorted())")
        #expect(Set(documented.keys) == Set(package.keys), "targets only in the doc: \(Set(documented.keys).subtracting(package.keys).sorted()); only in the package: \(Set(package.keys).subtracting(documented.keys).sorted())")
        for (name, dependencies) in package.sorted(by: { $0.key < $1.key }) {
            let written = documented[name] ?? []
            #expect(written == dependencies, "\(name): the doc has \(written.subtracting(dependencies).sorted()) too many, misses \(dependencies.subtracting(written).sorted())")
        }
    }

    @Test func dependenciesPointOneWay() throws {
        // No cycles: every target can be placed after all it depends on.
        var left = try Self.packageGraph()
        var placed: Set<String> = []
        while !left.isEmpty {
            let ready = left.filter { $0.value.isSubset(of: placed.union($0.value.subtracting(left.keys))) }.map(\.key)
            try #require(!ready.isEmpty, "a cycle among \(left.keys.sorted())")
            for name in ready { placed.insert(name); left[name] = nil }
        }
    }
}
