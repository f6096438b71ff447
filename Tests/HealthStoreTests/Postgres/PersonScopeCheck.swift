import Foundation
@testable import HealthStorePostgres

/// Decides whether a PostgreSQL statement reaches the rows of one person only: the property
/// that lets the schema be distributed by `person_id` (docs/scaling.md), since a statement
/// whose every person table is pinned to one `person_id` routes to one shard.
///
/// The rules, for every reference to a person table (``personTables``) in `FROM`, `JOIN`,
/// `UPDATE`, `DELETE FROM`, `USING` or `INSERT INTO`:
///
/// - `SELECT`, `UPDATE`, `DELETE`: a conjunct `alias.person_id = $N` (or `person_id = $N` when
///   the block names one person table) in `WHERE` or an inner `JOIN … ON` — never under `OR`
///   or `NOT` — or a conjunct `alias.person_id = other.person_id` (or `USING (person_id)`) with
///   a table that is itself pinned. An outer join's `ON` pins only its nullable side. A
///   correlated subquery may match the pinned table of an enclosing query.
/// - `INSERT`: the column list names `person_id`; each `VALUES` row puts a parameter there; an
///   `INSERT … SELECT` takes it from a parameter or from a pinned table's `person_id`, and its
///   `SELECT` is checked like any other. `ON CONFLICT … DO UPDATE` needs `person_id` in its
///   conflict target.
/// - No `UPDATE … SET person_id`. Every `person_id = $N` of one statement names the same `$N`.
/// - Subqueries, CTEs and `UNION`/`INTERSECT`/`EXCEPT` branches are checked each on their own.
/// - DDL and utility statements (`CREATE`, `ALTER`, `TRUNCATE`, `COPY`, `LOCK` …) that name a
///   person table fail: they are for migrations, which the caller leaves out. `DO`, `CALL` and
///   `EXECUTE` fail. Statements that name no person table (`BEGIN`, `SET LOCAL`,
///   `schema_migrations`) pass.
///
/// It reads tokens, not a parse tree: comments, string literals (also `E'…'` and dollar-quoted)
/// and quoted identifiers are lexed first, so no filter can hide in them; anything it cannot
/// read (an unbalanced parenthesis, a person table in a place it does not know) fails. It is
/// strict rather than complete: a filter in `HAVING`, `IN ($1)` or an equivalent rewritten
/// under `OR` is not credited. It does not see inside functions, views, triggers or rules, and
/// it cannot tell which value is bound: the caller checks that the placeholder in
/// ``Report/parameters`` holds the store's person.
enum PersonScopeCheck {
    /// The tables keyed by `person_id`: all of the schema but `schema_migrations` (the list
    /// the engine removes a person by, and `person`; CitusDistributionTests holds it to the
    /// schema and to the Citus distribution file).
    static let personTables: Set<String> = Set(PostgresSchema.personTables + ["person"])

    /// What one check found.
    struct Report: Equatable, Sendable {
        /// The person tables the SQL names, in order of first appearance.
        var tables: [String] = []
        /// The placeholders `person_id` is matched with or set from (one for a scoped statement
        /// that names a person table; none for one that names none).
        var parameters: [Int] = []
        /// What is wrong, one line each; empty when the SQL is scoped to one person.
        var violations: [String] = []

        var isScoped: Bool { violations.isEmpty }
    }

    /// Checks SQL (one statement, or several separated by `;`, each checked on its own).
    ///
    /// - Parameter personParameter: the placeholder that must hold the person (`1` for the
    ///   engine, which binds the person first); `nil` accepts any one placeholder per statement.
    static func check(_ sql: String, personParameter: Int? = nil) -> Report {
        let tokens: [Token]
        do { tokens = try Lexer.tokens(sql) } catch { return Report(violations: [error.message]) }
        var close = [Int](repeating: -1, count: tokens.count)
        var open: [Int] = []
        for (i, token) in tokens.enumerated() where token.kind == .symbol {
            if token.text == "(" { open.append(i) }
            if token.text == ")" {
                guard let o = open.popLast() else { return Report(violations: ["unbalanced parentheses: a ) without its ("]) }
                close[o] = i
            }
        }
        guard open.isEmpty else { return Report(violations: ["unbalanced parentheses: a ( without its )"]) }
        let analyzer = Analyzer(tokens: tokens, close: close, personParameter: personParameter)
        analyzer.run()
        return analyzer.report
    }

    /// What is wrong with the SQL, one human-readable line each (table and reason); empty when
    /// every person table it names is pinned to one person.
    static func violations(in sql: String, personParameter: Int? = nil) -> [String] {
        check(sql, personParameter: personParameter).violations
    }

    /// Whether the SQL is scoped to one person (or names no person table).
    static func isScoped(_ sql: String, personParameter: Int? = nil) -> Bool {
        check(sql, personParameter: personParameter).isScoped
    }
}

// MARK: Tokens

extension PersonScopeCheck {
    struct Token: Equatable, Sendable {
        enum Kind: Sendable { case word, quoted, parameter, number, literal, symbol }
        let kind: Kind
        /// Words are lowercased; quoted identifiers keep their case; literals are empty.
        let text: String
    }

    struct LexError: Error {
        let message: String
    }

    enum Lexer {
        static func tokens(_ sql: String) throws(LexError) -> [Token] {
            let s = Array(sql.unicodeScalars)
            var out: [Token] = []
            var i = 0
            func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
            func isIdentStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic || c.value >= 0x80 }
            func isIdentPart(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || ("0"..."9").contains(c) || c == "$" }
            let operatorChars = Set("+-*/<>=~!@#%^&|`?".unicodeScalars)

            /// Skips a quoted run that starts at `i` (on the quote) and returns the text inside.
            func quoted(_ quote: Unicode.Scalar, backslashEscapes: Bool, what: String) throws(LexError) -> String {
                var text = ""
                i += 1
                while true {
                    guard let c = at(i) else { throw LexError(message: "unterminated \(what)") }
                    if backslashEscapes && c == "\\" {
                        i += 2
                        continue
                    }
                    if c == quote {
                        if at(i + 1) == quote {
                            text.unicodeScalars.append(c)
                            i += 2
                            continue
                        }
                        i += 1
                        return text
                    }
                    text.unicodeScalars.append(c)
                    i += 1
                }
            }

            while let c = at(i) {
                if c.properties.isWhitespace {
                    i += 1
                } else if c == "-" && at(i + 1) == "-" {
                    while let d = at(i), d != "\n" { i += 1 }
                } else if c == "/" && at(i + 1) == "*" {
                    var depth = 0
                    repeat {
                        guard let d = at(i) else { throw LexError(message: "unterminated /* comment") }
                        if d == "/" && at(i + 1) == "*" {
                            depth += 1
                            i += 2
                        } else if d == "*" && at(i + 1) == "/" {
                            depth -= 1
                            i += 2
                        } else {
                            i += 1
                        }
                    } while depth > 0
                } else if c == "'" {
                    _ = try quoted("'", backslashEscapes: false, what: "string literal")
                    out.append(Token(kind: .literal, text: ""))
                } else if c == "\"" {
                    out.append(Token(kind: .quoted, text: try quoted("\"", backslashEscapes: false, what: "quoted identifier")))
                } else if c == "$", let d = at(i + 1), ("0"..."9").contains(d) {
                    var digits = ""
                    i += 1
                    while let e = at(i), ("0"..."9").contains(e) {
                        digits.unicodeScalars.append(e)
                        i += 1
                    }
                    out.append(Token(kind: .parameter, text: digits))
                } else if c == "$" {
                    // A dollar-quoted string: $$…$$ or $tag$…$tag$.
                    var j = i + 1
                    while let e = at(j), isIdentStart(e) || ("0"..."9").contains(e) { j += 1 }
                    guard at(j) == "$" else {
                        out.append(Token(kind: .symbol, text: "$"))
                        i += 1
                        continue
                    }
                    let tag = Array(s[i...j])
                    var k = j + 1
                    var found = false
                    while k + tag.count <= s.count {
                        if Array(s[k..<(k + tag.count)]) == tag {
                            found = true
                            break
                        }
                        k += 1
                    }
                    guard found else { throw LexError(message: "unterminated dollar-quoted string") }
                    i = k + tag.count
                    out.append(Token(kind: .literal, text: ""))
                } else if isIdentStart(c) {
                    var word = ""
                    while let e = at(i), isIdentPart(e) {
                        word.unicodeScalars.append(e)
                        i += 1
                    }
                    let lower = word.lowercased()
                    if at(i) == "'", ["e", "b", "x", "n"].contains(lower) {
                        _ = try quoted("'", backslashEscapes: lower == "e", what: "string literal")
                        out.append(Token(kind: .literal, text: ""))
                    } else if lower == "u", at(i) == "&", let q = at(i + 1), q == "'" || q == "\"" {
                        i += 1
                        // A U&"…" identifier may spell a table name in escapes: not read.
                        guard q == "'" else { throw LexError(message: "cannot read a U&\"…\" identifier") }
                        _ = try quoted(q, backslashEscapes: false, what: "string literal")
                        out.append(Token(kind: .literal, text: ""))
                    } else {
                        out.append(Token(kind: .word, text: lower))
                    }
                } else if ("0"..."9").contains(c) || (c == "." && at(i + 1).map { ("0"..."9").contains($0) } == true) {
                    var number = ""
                    while let e = at(i), isIdentPart(e) || e == "." || ((e == "+" || e == "-") && (number.last == "e" || number.last == "E")) {
                        number.unicodeScalars.append(e)
                        i += 1
                    }
                    out.append(Token(kind: .number, text: number))
                } else if c == ":" && at(i + 1) == ":" {
                    out.append(Token(kind: .symbol, text: "::"))
                    i += 2
                } else if operatorChars.contains(c) {
                    var op = ""
                    while let e = at(i), operatorChars.contains(e) {
                        if (e == "-" && at(i + 1) == "-") || (e == "/" && at(i + 1) == "*") { break }
                        op.unicodeScalars.append(e)
                        i += 1
                    }
                    out.append(Token(kind: .symbol, text: op))
                } else {
                    out.append(Token(kind: .symbol, text: String(c)))
                    i += 1
                }
            }
            return out
        }
    }
}

// MARK: Analysis

extension PersonScopeCheck {
    /// What a statement inherits from the statements around it.
    struct Context {
        /// Aliases of enclosing queries that are pinned to the person (for correlated subqueries).
        var outer: Set<String> = []
        /// Names of CTEs in scope (a CTE named like a person table is not that table).
        var ctes: Set<String> = []
        /// How deep in subqueries, for messages.
        var depth = 0

        var deeper: Context {
            var c = self
            c.depth += 1
            return c
        }
    }

    /// One table, subquery or function in a `FROM` list (or an `UPDATE`/`DELETE`/`INSERT` target).
    struct Item {
        let table: String?
        let alias: String
        let isPerson: Bool
        var label: String {
            guard let table, table != alias else { return alias }
            return "\(table) \(alias)"
        }
    }

    /// A condition (`WHERE`, or a join's `ON`), and which aliases it may pin: all for `WHERE`
    /// and inner joins, only the nullable side for outer joins.
    struct Condition {
        let lo: Int
        let hi: Int
        let pins: Set<String>?
    }

    /// One `SELECT` block (or `UPDATE`/`DELETE`) as read: its items, conditions and the result.
    struct Block {
        var items: [Item] = []
        var conditions: [Condition] = []
        var links: [(from: String, to: String)] = []
        var selectList: [(Int, Int)]?
        var outer: Set<String> = []
        var scoped: Set<String> = []
        var aliases: Set<String> { Set(items.map(\.alias)) }
        var personAliases: [String] { items.filter(\.isPerson).map(\.alias) }
    }

    enum Operand {
        case parameter(Int)
        case column(qualifier: String?, name: String)
    }

    static let statementWords: Set<String> = ["select", "with", "values", "insert", "update", "delete", "table"]
    /// Words that end a `FROM` item (so cannot be its alias).
    static let reserved: Set<String> = [
        "on", "using", "join", "inner", "left", "right", "full", "cross", "natural", "where", "group", "having", "window", "order",
        "limit", "offset", "fetch", "for", "union", "intersect", "except", "returning", "set", "lateral", "tablesample", "into",
        "values", "select", "from", "and", "or", "not", "as", "with", "default", "do", "overriding", "only",
    ]

    final class Analyzer {
        let t: [Token]
        let close: [Int]
        let personParameter: Int?
        var report = Report()
        /// Tokens read as table names, aliases or CTE names (a person table's name anywhere
        /// else is a place the checker does not understand).
        var consumed: [Bool]
        var parameters: [Int] = []

        init(tokens: [Token], close: [Int], personParameter: Int?) {
            t = tokens
            self.close = close
            self.personParameter = personParameter
            consumed = [Bool](repeating: false, count: tokens.count)
        }

        // MARK: Token helpers

        func isWord(_ i: Int, _ w: String) -> Bool { i >= 0 && i < t.count && t[i].kind == .word && t[i].text == w }
        func isSymbol(_ i: Int, _ s: String) -> Bool { i >= 0 && i < t.count && t[i].kind == .symbol && t[i].text == s }
        func name(_ i: Int) -> String? { i >= 0 && i < t.count && (t[i].kind == .word || t[i].kind == .quoted) ? t[i].text : nil }
        func after(_ i: Int) -> Int { isSymbol(i, "(") ? close[i] + 1 : i + 1 }

        /// The indices of a range's tokens outside parentheses (a group counts by its `(`).
        func top(_ lo: Int, _ hi: Int) -> [Int] {
            var out: [Int] = []
            var i = lo
            while i < hi {
                out.append(i)
                i = after(i)
            }
            return out
        }

        func isGroup(_ lo: Int, _ hi: Int) -> Bool { hi - lo >= 2 && isSymbol(lo, "(") && close[lo] == hi - 1 }

        func startsStatement(_ i: Int) -> Bool {
            if isSymbol(i, "(") { return startsStatement(i + 1) }
            return i < t.count && t[i].kind == .word && statementWords.contains(t[i].text)
        }

        /// Splits a range at top-level commas.
        func commaSeparated(_ lo: Int, _ hi: Int) -> [(Int, Int)] {
            var parts: [(Int, Int)] = []
            var start = lo
            for i in top(lo, hi) where isSymbol(i, ",") {
                parts.append((start, i))
                start = i + 1
            }
            if start < hi || !parts.isEmpty { parts.append((start, hi)) }
            return parts
        }

        /// A range as SQL text, literals elided, for messages.
        func text(_ lo: Int, _ hi: Int) -> String {
            var out = ""
            var previous: Token?
            for token in t[lo..<max(lo, min(hi, t.count))] {
                let piece =
                    switch token.kind {
                    case .literal: "'…'"
                    case .parameter: "$" + token.text
                    case .quoted: "\"\(token.text)\""
                    default: token.text
                    }
                let call = token.text == "(" && (previous?.kind == .word || previous?.kind == .quoted)
                let glued = previous == nil || [")", ",", ".", "::"].contains(piece) || ["(", ".", "::"].contains(previous!.text) || call
                out += (glued ? "" : " ") + piece
                previous = token
            }
            return out
        }

        func fail(_ message: String, _ ctx: Context) {
            let line = ctx.depth > 0 ? message + " (in a subquery)" : message
            if !report.violations.contains(line) { report.violations.append(line) }
        }

        func noteTable(_ table: String) {
            if !report.tables.contains(table) { report.tables.append(table) }
        }

        func isPersonTable(_ table: String, qualified: Bool, _ ctx: Context) -> Bool {
            personTables.contains(table) && (qualified || !ctx.ctes.contains(table))
        }

        // MARK: Statements

        func run() {
            var start = 0
            var pieces: [(Int, Int)] = []
            for i in top(0, t.count) where isSymbol(i, ";") {
                pieces.append((start, i))
                start = i + 1
            }
            pieces.append((start, t.count))
            for (lo, hi) in pieces where lo < hi {
                parameters = []
                _ = statement(lo, hi, Context())
                let distinct = Array(Set(parameters)).sorted()
                if let p = personParameter {
                    for n in distinct where n != p { fail("person_id is matched with $\(n), not with the person ($\(p))", Context()) }
                } else if distinct.count > 1 {
                    fail("person_id is matched with " + distinct.map { "$\($0)" }.joined(separator: " and ") + ": one statement must name one person", Context())
                }
                for n in distinct where !report.parameters.contains(n) { report.parameters.append(n) }
            }
            // A person table anywhere the reading above did not place it fails closed.
            for i in t.indices where !consumed[i] {
                guard let n = name(i), personTables.contains(n), !isSymbol(i + 1, "."), !isSymbol(i - 1, "."), !isWord(i - 1, "as") else { continue }
                noteTable(n)
                fail("\(n): named where the checker cannot tell how it is used", Context())
            }
        }

        /// Checks a statement; returns the blocks whose rows it yields (for `INSERT … SELECT`).
        @discardableResult
        func statement(_ lo: Int, _ hi: Int, _ context: Context) -> [Block] {
            guard lo < hi else { return [] }
            var ctx = context
            var i = lo
            if isWord(i, "explain") {
                i += 1
                if isSymbol(i, "(") { i = close[i] + 1 }
                while isWord(i, "analyze") || isWord(i, "verbose") { i += 1 }
                return statement(i, hi, ctx)
            }
            if isWord(i, "with") {
                i += 1
                let recursive = isWord(i, "recursive")
                if recursive { i += 1 }
                while i < hi, let cte = name(i) {
                    consumed[i] = true
                    i += 1
                    if isSymbol(i, "(") { i = close[i] + 1 }
                    guard isWord(i, "as") else {
                        fail("cannot read the WITH clause", ctx)
                        return []
                    }
                    i += 1
                    if isWord(i, "not") { i += 1 }
                    if isWord(i, "materialized") { i += 1 }
                    guard isSymbol(i, "(") else {
                        fail("cannot read the WITH clause", ctx)
                        return []
                    }
                    var bodyContext = ctx
                    if recursive { bodyContext.ctes.insert(cte) }
                    statement(i + 1, close[i], bodyContext.deeper)
                    ctx.ctes.insert(cte)
                    i = close[i] + 1
                    guard isSymbol(i, ",") else { break }
                    i += 1
                }
                return statement(i, hi, ctx)
            }
            if isSymbol(i, "(") { return setOperation(i, hi, ctx) }
            switch t[i].kind == .word ? t[i].text : "" {
            case "select", "values", "table": return setOperation(i, hi, ctx)
            case "insert": insert(i, hi, ctx)
            case "update": update(i, hi, ctx)
            case "delete": delete(i, hi, ctx)
            default: utility(i, hi, ctx)
            }
            return []
        }

        /// DDL and other commands: naming a person table fails, and so does running SQL the
        /// checker cannot see (a `DO` block's body is a string; `CALL`/`EXECUTE` run stored SQL).
        func utility(_ lo: Int, _ hi: Int, _ ctx: Context) {
            let command = text(lo, min(lo + 1, hi)).uppercased()
            if ["DO", "CALL", "EXECUTE"].contains(command) {
                fail("\(command) runs SQL the checker cannot see", ctx)
                return
            }
            for i in lo..<hi where !consumed[i] {
                guard let n = name(i), personTables.contains(n), !isSymbol(i + 1, "."), !isSymbol(i - 1, ".") else { continue }
                consumed[i] = true
                noteTable(n)
                fail("\(n): named by \(command), which is not scoped to a person (DDL and utility statements belong in migrations)", ctx)
            }
        }

        /// Checks subqueries inside a range (each on its own), with the pinned aliases around them.
        func subqueries(_ lo: Int, _ hi: Int, _ ctx: Context) {
            var i = lo
            while i < hi {
                if isSymbol(i, "(") {
                    if startsStatement(i + 1) { statement(i + 1, close[i], ctx.deeper) } else { subqueries(i + 1, close[i], ctx) }
                    i = close[i] + 1
                } else {
                    i += 1
                }
            }
        }

        /// `a UNION b EXCEPT c …`: each branch on its own.
        func setOperation(_ lo: Int, _ hi: Int, _ ctx: Context) -> [Block] {
            var branches: [(Int, Int)] = []
            var start = lo
            for i in top(lo, hi) where isWord(i, "union") || isWord(i, "intersect") || isWord(i, "except") {
                branches.append((start, i))
                start = i + 1
                if isWord(start, "all") || isWord(start, "distinct") { start += 1 }
            }
            branches.append((start, hi))
            var blocks: [Block] = []
            for (a, b) in branches where a < b {
                if isSymbol(a, "(") {
                    blocks += statement(a + 1, close[a], ctx)
                    subqueries(close[a] + 1, b, ctx)
                } else {
                    blocks.append(select(a, b, ctx))
                }
            }
            return blocks
        }

        func select(_ lo: Int, _ hi: Int, _ ctx: Context) -> Block {
            var block = Block(outer: ctx.outer)
            if isWord(lo, "values") {
                subqueries(lo + 1, hi, ctx)
                return block
            }
            if isWord(lo, "table") {
                if let n = name(lo + 1) {
                    consumed[lo + 1] = true
                    if isPersonTable(n, qualified: false, ctx) {
                        noteTable(n)
                        fail("\(n): TABLE \(n) reads every person's rows", ctx)
                    }
                }
                return block
            }
            guard isWord(lo, "select") else {
                fail("cannot read the query at \(text(lo, min(lo + 4, hi)))", ctx)
                return block
            }
            let clauses: Set<String> = ["from", "where", "group", "having", "window", "order", "limit", "offset", "fetch", "for", "into"]
            var marks: [(word: String, at: Int)] = []
            for i in top(lo + 1, hi) {
                if isWord(i, "on") && isWord(i + 1, "conflict") {
                    marks.append(("on", i))
                    continue
                }
                guard t[i].kind == .word, clauses.contains(t[i].text) else { continue }
                if t[i].text == "from" && isWord(i - 1, "distinct") && (isWord(i - 2, "is") || isWord(i - 2, "not")) { continue }
                if t[i].text == "group" && isWord(i - 1, "within") { continue }
                marks.append((t[i].text, i))
            }
            func range(of word: String) -> (Int, Int)? {
                guard let k = marks.firstIndex(where: { $0.word == word }) else { return nil }
                return (marks[k].at + 1, k + 1 < marks.count ? marks[k + 1].at : hi)
            }
            var listStart = lo + 1
            if isWord(listStart, "all") { listStart += 1 }
            if isWord(listStart, "distinct") {
                listStart += 1
                if isWord(listStart, "on"), isSymbol(listStart + 1, "(") { listStart = close[listStart + 1] + 1 }
            }
            block.selectList = commaSeparated(listStart, marks.first?.at ?? hi)
            if let (a, b) = range(of: "from") { _ = fromList(a, b, &block, ctx) }
            if let (a, b) = range(of: "where") { block.conditions.append(Condition(lo: a, hi: b, pins: nil)) }
            if let (a, b) = range(of: "for") { for i in a..<b { consumed[i] = true } }
            settle(&block, ctx)
            subqueries(lo, hi, inner(block, ctx))
            return block
        }

        func update(_ lo: Int, _ hi: Int, _ ctx: Context) {
            var i = lo + 1
            if isWord(i, "only") { i += 1 }
            var block = Block(outer: ctx.outer)
            guard let target = targetTable(&i, hi, ctx, verb: "UPDATE") else { return }
            block.items.append(target)
            guard isWord(i, "set") else {
                fail("cannot read UPDATE \(target.label) (no SET)", ctx)
                return
            }
            let rest = top(i + 1, hi)
            let fromAt = rest.first { isWord($0, "from") }
            let whereAt = rest.first { isWord($0, "where") }
            let returningAt = rest.first { isWord($0, "returning") }
            checkAssignments(i + 1, [fromAt, whereAt, returningAt].compactMap { $0 }.min() ?? hi, target, ctx)
            if let f = fromAt { _ = fromList(f + 1, [whereAt, returningAt].compactMap { $0 }.min() ?? hi, &block, ctx) }
            if let w = whereAt { block.conditions.append(Condition(lo: w + 1, hi: returningAt ?? hi, pins: nil)) }
            settle(&block, ctx)
            subqueries(lo, hi, inner(block, ctx))
        }

        func delete(_ lo: Int, _ hi: Int, _ ctx: Context) {
            var i = lo + 1
            guard isWord(i, "from") else {
                fail("cannot read the DELETE statement", ctx)
                return
            }
            i += 1
            if isWord(i, "only") { i += 1 }
            var block = Block(outer: ctx.outer)
            guard let target = targetTable(&i, hi, ctx, verb: "DELETE FROM") else { return }
            block.items.append(target)
            let rest = top(i, hi)
            let usingAt = rest.first { isWord($0, "using") }
            let whereAt = rest.first { isWord($0, "where") }
            let returningAt = rest.first { isWord($0, "returning") }
            if let u = usingAt { _ = fromList(u + 1, [whereAt, returningAt].compactMap { $0 }.min() ?? hi, &block, ctx) }
            if let w = whereAt { block.conditions.append(Condition(lo: w + 1, hi: returningAt ?? hi, pins: nil)) }
            settle(&block, ctx)
            subqueries(lo, hi, inner(block, ctx))
        }

        func insert(_ lo: Int, _ hi: Int, _ ctx: Context) {
            var i = lo + 1
            guard isWord(i, "into"), let first = name(i + 1) else {
                fail("cannot read the INSERT statement", ctx)
                return
            }
            i += 1
            var table = first
            var qualified = false
            consumed[i] = true
            i += 1
            while isSymbol(i, "."), let part = name(i + 1) {
                table = part
                qualified = true
                consumed[i + 1] = true
                i += 2
            }
            if isWord(i, "as"), name(i + 1) != nil {
                consumed[i + 1] = true
                i += 2
            }
            let isPerson = isPersonTable(table, qualified: qualified, ctx)
            if isPerson { noteTable(table) }
            var columns: [String]?
            if isSymbol(i, "("), !startsStatement(i + 1) {
                columns = commaSeparated(i + 1, close[i]).compactMap { name($0.0) }
                i = close[i] + 1
            }
            if isWord(i, "overriding") { i += 3 }
            let rest = top(i, hi)
            let conflictAt = rest.first { isWord($0, "on") && isWord($0 + 1, "conflict") }
            let returningAt = rest.first { isWord($0, "returning") }
            let bodyEnd = [conflictAt, returningAt].compactMap { $0 }.min() ?? hi
            let personIndex = columns?.firstIndex(of: "person_id")
            var readable = isPerson
            if isPerson && columns == nil {
                fail("\(table): INSERT without a column list, so person_id is not visibly the person", ctx)
                readable = false
            } else if isPerson && personIndex == nil {
                fail("\(table): INSERT leaves out person_id", ctx)
                readable = false
            }
            if isWord(i, "default") {
                if readable { fail("\(table): INSERT … DEFAULT VALUES sets no person", ctx) }
            } else if isWord(i, "values") {
                let rows = commaSeparated(i + 1, bodyEnd)
                for (n, row) in rows.enumerated() {
                    guard readable, let k = personIndex else { break }
                    guard isGroup(row.0, row.1) else {
                        fail("\(table): cannot read VALUES row \(n + 1)", ctx)
                        continue
                    }
                    let values = commaSeparated(row.0 + 1, row.1 - 1)
                    guard k < values.count else {
                        fail("\(table): VALUES row \(n + 1) has no value for person_id", ctx)
                        continue
                    }
                    if case .parameter(let p) = operand(values[k].0, values[k].1) {
                        parameters.append(p)
                    } else {
                        fail("\(table): VALUES row \(n + 1) puts \(text(values[k].0, values[k].1)) in person_id, not the person's parameter", ctx)
                    }
                }
                subqueries(i + 1, bodyEnd, ctx)
            } else {
                let blocks = statement(i, bodyEnd, ctx)
                if readable, let k = personIndex {
                    if blocks.isEmpty { fail("\(table): cannot see where INSERT … SELECT takes person_id from", ctx) }
                    for block in blocks { checkInsertSource(block, column: k, table: table, ctx) }
                }
            }
            if let c = conflictAt { conflict(c, returningAt ?? hi, table: table, isPerson: isPerson, ctx) }
            subqueries(bodyEnd, hi, ctx)
        }

        /// An `INSERT … SELECT` must take `person_id` from the person's parameter or a pinned table.
        func checkInsertSource(_ block: Block, column k: Int, table: String, _ ctx: Context) {
            guard let list = block.selectList, k < list.count else {
                fail("\(table): INSERT … SELECT has no column for person_id", ctx)
                return
            }
            var (a, b) = list[k]
            if b - a >= 2, isWord(b - 2, "as") {
                b -= 2
            } else if b - a >= 2, name(b - 1) != nil, !isSymbol(b - 2, ".") {
                b -= 1
            }
            switch operand(a, b) {
            case .parameter(let p):
                parameters.append(p)
            case .column(let q, "person_id"):
                if let node = resolve(q, block), block.scoped.contains(node) { return }
                fail("\(table): INSERT … SELECT takes person_id from \(text(a, b)), which is not pinned to the person", ctx)
            default:
                fail("\(table): INSERT … SELECT puts \(text(a, b)) in person_id, not the person", ctx)
            }
        }

        /// `ON CONFLICT … DO UPDATE` on a person table must conflict on a key with person_id,
        /// or the row it updates may be another person's; and it may not move a row.
        func conflict(_ lo: Int, _ hi: Int, table: String, isPerson: Bool, _ ctx: Context) {
            var i = lo + 2
            var target: [String] = []
            if isSymbol(i, "(") {
                target = commaSeparated(i + 1, close[i]).compactMap { name($0.0) }
                i = close[i] + 1
            }
            guard let doAt = top(i, hi).first(where: { isWord($0, "do") }), isWord(doAt + 1, "update") else { return }
            guard isPerson else { return }
            if !target.contains("person_id") {
                fail("\(table): ON CONFLICT … DO UPDATE without person_id in its conflict target may update another person's row", ctx)
            }
            if isWord(doAt + 2, "set") {
                let end = top(doAt + 3, hi).first { isWord($0, "where") } ?? hi
                checkAssignments(doAt + 3, end, Item(table: table, alias: table, isPerson: true), ctx)
            }
        }

        /// `SET person_id = …` moves rows between people.
        func checkAssignments(_ lo: Int, _ hi: Int, _ target: Item, _ ctx: Context) {
            guard target.isPerson else { return }
            for (a, b) in commaSeparated(lo, hi) {
                let equals = top(a, b).first { isSymbol($0, "=") } ?? b
                if (a..<equals).contains(where: { name($0) == "person_id" }) {
                    fail("\(target.label): SET person_id moves rows to another person", ctx)
                }
            }
        }


        /// The table an `UPDATE` or `DELETE` works on, with its alias.
        func targetTable(_ i: inout Int, _ hi: Int, _ ctx: Context, verb: String) -> Item? {
            guard var table = name(i) else {
                fail("cannot read the \(verb) statement", ctx)
                return nil
            }
            var qualified = false
            consumed[i] = true
            i += 1
            while isSymbol(i, "."), let part = name(i + 1) {
                table = part
                qualified = true
                consumed[i + 1] = true
                i += 2
            }
            if isSymbol(i, "*") { i += 1 }
            let alias = readAlias(&i, hi) ?? table
            let isPerson = isPersonTable(table, qualified: qualified, ctx)
            if isPerson { noteTable(table) }
            return Item(table: table, alias: alias, isPerson: isPerson)
        }

        // MARK: FROM lists

        /// An optional `[AS] alias [(columns)]`.
        func readAlias(_ i: inout Int, _ hi: Int) -> String? {
            var alias: String?
            if isWord(i, "as"), i + 1 < hi, let n = name(i + 1) {
                consumed[i + 1] = true
                alias = n
                i += 2
            } else if i < hi, let n = name(i), !(t[i].kind == .word && reserved.contains(n)) {
                consumed[i] = true
                alias = n
                i += 1
            }
            if alias != nil, i < hi, isSymbol(i, "(") { i = close[i] + 1 }
            return alias
        }

        func isJoinStart(_ i: Int) -> Bool {
            if isWord(i, "join") || isWord(i, "natural") { return true }
            if isWord(i, "inner") || isWord(i, "cross") { return isWord(i + 1, "join") }
            if isWord(i, "left") || isWord(i, "right") || isWord(i, "full") { return isWord(i + 1, "join") || isWord(i + 1, "outer") }
            return false
        }

        /// Reads a `FROM` list into the block's items, join conditions and `USING` links;
        /// returns the aliases it introduced.
        func fromList(_ lo: Int, _ hi: Int, _ block: inout Block, _ ctx: Context) -> [String] {
            var i = lo
            var left = factor(&i, hi, &block, ctx)
            while i < hi {
                if isSymbol(i, ",") {
                    i += 1
                    left += factor(&i, hi, &block, ctx)
                    continue
                }
                var natural = false
                var kind = "inner"
                if isWord(i, "natural") {
                    natural = true
                    i += 1
                }
                for k in ["inner", "left", "right", "full", "cross"] where isWord(i, k) {
                    kind = k
                    i += 1
                    if isWord(i, "outer") { i += 1 }
                }
                guard isWord(i, "join") else {
                    fail("cannot read the FROM list at \(text(i, min(i + 4, hi)))", ctx)
                    return left
                }
                i += 1
                let right = factor(&i, hi, &block, ctx)
                // Which side a join condition can pin: an outer join keeps every row of its
                // preserved side, whatever the condition says.
                let pins: Set<String>? =
                    switch kind {
                    case "left": Set(right)
                    case "right": Set(left)
                    case "full": []
                    default: nil
                    }
                func link(_ a: String, _ b: String) {
                    if pins?.contains(b) ?? true { block.links.append((a, b)) }
                    if pins?.contains(a) ?? true { block.links.append((b, a)) }
                }
                let personAliases = Set(block.personAliases)
                if natural {
                    for a in left where personAliases.contains(a) {
                        for b in right where personAliases.contains(b) { link(a, b) }
                    }
                } else if isWord(i, "on") {
                    var j = i + 1
                    while j < hi && !isJoinStart(j) && !isSymbol(j, ",") { j = after(j) }
                    block.conditions.append(Condition(lo: i + 1, hi: j, pins: pins))
                    i = j
                } else if isWord(i, "using"), isSymbol(i + 1, "(") {
                    let columns = commaSeparated(i + 2, close[i + 1]).compactMap { name($0.0) }
                    i = close[i + 1] + 1
                    if isWord(i, "as") { i += 2 }
                    if columns.contains("person_id") {
                        for a in left {
                            for b in right { link(a, b) }
                        }
                    }
                } else if kind != "cross" {
                    fail("cannot read the join at \(text(i, min(i + 4, hi)))", ctx)
                }
                left += right
            }
            return left
        }

        /// One table, subquery, function or parenthesized join; returns the aliases it introduces.
        func factor(_ i: inout Int, _ hi: Int, _ block: inout Block, _ ctx: Context) -> [String] {
            if isWord(i, "lateral") { i += 1 }
            if isSymbol(i, "(") {
                let end = close[i]
                if startsStatement(i + 1) {
                    // A derived table: its query is checked with the other subqueries.
                    i = end + 1
                    let alias = readAlias(&i, hi) ?? "(subquery \(end))"
                    block.items.append(Item(table: nil, alias: alias, isPerson: false))
                    return [alias]
                }
                let aliases = fromList(i + 1, end, &block, ctx)
                i = end + 1
                if let alias = readAlias(&i, hi) {
                    block.items.append(Item(table: nil, alias: alias, isPerson: false))
                    return aliases + [alias]
                }
                return aliases
            }
            if isWord(i, "only") { i += 1 }
            guard i < hi, var table = name(i), !(t[i].kind == .word && reserved.contains(table)) else {
                fail("cannot read the FROM list at \(text(i, min(i + 4, hi)))", ctx)
                i = hi
                return []
            }
            var qualified = false
            consumed[i] = true
            i += 1
            while isSymbol(i, "."), let part = name(i + 1) {
                table = part
                qualified = true
                consumed[i + 1] = true
                i += 2
            }
            if isSymbol(i, "(") {
                // A function in FROM (generate_series(…), unnest(…)).
                i = close[i] + 1
                if isWord(i, "with"), isWord(i + 1, "ordinality") { i += 2 }
                let alias = readAlias(&i, hi) ?? table
                block.items.append(Item(table: nil, alias: alias, isPerson: false))
                return [alias]
            }
            if isSymbol(i, "*") { i += 1 }
            let aliasAt = i
            let alias = readAlias(&i, hi) ?? table
            let renamesColumns = isSymbol(i - 1, ")") && i - 1 > aliasAt
            if isWord(i, "tablesample") {
                i += 2
                if isSymbol(i, "(") { i = close[i] + 1 }
                if isWord(i, "repeatable"), isSymbol(i + 1, "(") { i = close[i + 1] + 1 }
            }
            let isPerson = isPersonTable(table, qualified: qualified, ctx)
            if isPerson { noteTable(table) }
            if isPerson && renamesColumns {
                // `resource r(id, person_id)` would call another column person_id.
                fail("\(table) \(alias): column aliases on a person table are not followed", ctx)
            }
            block.items.append(Item(table: table, alias: alias, isPerson: isPerson))
            return [alias]
        }

        // MARK: Conditions

        /// The conjuncts of a condition: pieces joined by top-level `AND` (parenthesized ones
        /// opened up). A condition with a top-level `OR` guarantees none of its pieces.
        func conjuncts(_ lo: Int, _ hi: Int) -> [(Int, Int)] {
            var pieces: [(Int, Int)] = []
            var start = lo
            var between = false
            for i in top(lo, hi) {
                if isWord(i, "or") { return [] }
                if isWord(i, "between") { between = true }
                if isWord(i, "and") {
                    if between {
                        between = false
                        continue
                    }
                    pieces.append((start, i))
                    start = i + 1
                }
            }
            pieces.append((start, hi))
            return pieces.flatMap { (a, b) -> [(Int, Int)] in
                isGroup(a, b) && !startsStatement(a + 1) ? conjuncts(a + 1, b - 1) : [(a, b)]
            }
        }

        /// A placeholder or a column, allowing parentheses and a cast (`$1::text`).
        func operand(_ lo: Int, _ hi: Int) -> Operand? {
            guard lo < hi else { return nil }
            if isGroup(lo, hi) && !startsStatement(lo + 1) { return operand(lo + 1, hi - 1) }
            var end = hi
            if let cast = top(lo, hi).first(where: { isSymbol($0, "::") }) {
                guard top(cast + 1, hi).allSatisfy({ name($0) != nil || isSymbol($0, "(") || isSymbol($0, "[") || isSymbol($0, "]") }) else { return nil }
                end = cast
            }
            if end - lo == 1 && t[lo].kind == .parameter { return Int(t[lo].text).map(Operand.parameter) }
            var parts: [String] = []
            var i = lo
            while i < end {
                guard let n = name(i) else { return nil }
                parts.append(n)
                i += 1
                if i < end {
                    guard isSymbol(i, ".") else { return nil }
                    i += 1
                    guard i < end else { return nil }
                }
            }
            guard let column = parts.last else { return nil }
            return .column(qualifier: parts.count >= 2 ? parts[parts.count - 2] : nil, name: column)
        }

        /// The node an alias stands for in a block: its own alias, or a pinned alias of an
        /// enclosing query (`^name`); an unqualified `person_id` is the block's one person table.
        func resolve(_ qualifier: String?, _ block: Block) -> String? {
            if let q = qualifier {
                if block.aliases.contains(q) { return q }
                if block.outer.contains(q) { return "^" + q }
                return nil
            }
            let persons = block.personAliases
            return persons.count == 1 ? persons[0] : nil
        }

        /// Reads the block's conditions into pins and links, works out which aliases are
        /// pinned, and reports every person table that is not.
        func settle(_ block: inout Block, _ ctx: Context) {
            var pinned = Set<String>()
            var loose = Set<String>()
            var ambiguous = false
            for condition in block.conditions {
                for (a, b) in conjuncts(condition.lo, condition.hi) {
                    let equals = top(a, b).filter { isSymbol($0, "=") }
                    guard equals.count == 1, let l = operand(a, equals[0]), let r = operand(equals[0] + 1, b) else { continue }
                    switch (l, r) {
                    case (.column(let q, "person_id"), .parameter(let p)), (.parameter(let p), .column(let q, "person_id")):
                        parameters.append(p)
                        if q == nil && block.personAliases.count > 1 { ambiguous = true }
                        if let node = resolve(q, block), condition.pins?.contains(node) ?? true { pinned.insert(node) }
                    case (.column(let q1, "person_id"), .column(let q2, "person_id")):
                        guard let n1 = resolve(q1, block), let n2 = resolve(q2, block) else { continue }
                        if condition.pins?.contains(n2) ?? true { block.links.append((n1, n2)) }
                        if condition.pins?.contains(n1) ?? true { block.links.append((n2, n1)) }
                    default:
                        continue
                    }
                }
                // A person filter that is not a conjunct (under OR or NOT), for the message.
                for i in condition.lo..<condition.hi where name(i) == "person_id" && isSymbol(i + 1, "=") && t.indices.contains(i + 2) && t[i + 2].kind == .parameter {
                    if let node = resolve(isSymbol(i - 1, ".") ? name(i - 2) : nil, block) { loose.insert(node) }
                }
            }
            // Pinned spreads along person_id matches; enclosing pinned aliases are pinned.
            var scoped = pinned
            for link in block.links where link.from.hasPrefix("^") { scoped.insert(link.from) }
            var changed = true
            while changed {
                changed = false
                for link in block.links where scoped.contains(link.from) && !scoped.contains(link.to) {
                    scoped.insert(link.to)
                    changed = true
                }
            }
            block.scoped = scoped
            let hasPinnedPerson = block.items.contains { $0.isPerson && scoped.contains($0.alias) }
            for item in block.items where item.isPerson && !scoped.contains(item.alias) {
                let a = item.alias
                if loose.contains(a) {
                    fail("\(item.label): its person_id = $N does not hold for every row (it is under OR, NOT or BETWEEN, or in an outer join's ON)", ctx)
                } else if ambiguous {
                    fail("\(item.label): person_id is unqualified but the query names several person tables", ctx)
                } else if hasPinnedPerson {
                    fail("\(item.label): joined without \(a).person_id matching a pinned table's person_id (or $N), so the join reaches other people's rows", ctx)
                } else {
                    fail("\(item.label): no \(a).person_id = $N in WHERE or JOIN … ON, so it reaches every person's rows", ctx)
                }
            }
        }

        /// The context for a block's subqueries: its pinned aliases shadow the enclosing ones.
        func inner(_ block: Block, _ ctx: Context) -> Context {
            var c = ctx
            c.outer = ctx.outer.subtracting(block.aliases).union(block.scoped.filter { !$0.hasPrefix("^") })
            return c
        }
    }
}
