import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Query evaluation compared with a brute-force filter written here, over
/// random data and hundreds of random predicates (fixed seeds).
final class QueryEngineTests: XCTestCase {

    // MARK: The model

    enum Op: CaseIterable {
        case eq, ne, lt, le, gt, ge, beginsWith, endsWith, contains, like

        var text: String {
            switch self {
            case .eq: return "=="
            case .ne: return "!="
            case .lt: return "<"
            case .le: return "<="
            case .gt: return ">"
            case .ge: return ">="
            case .beginsWith: return "BEGINSWITH"
            case .endsWith: return "ENDSWITH"
            case .contains: return "CONTAINS"
            case .like: return "LIKE"
            }
        }

        var mirrored: Op {
            switch self {
            case .lt: return .gt
            case .le: return .ge
            case .gt: return .lt
            case .ge: return .le
            default: return self
            }
        }

        var isOrdering: Bool { self == .lt || self == .le || self == .gt || self == .ge }
        static let equality: [Op] = [.eq, .ne]
        static let comparisons: [Op] = [.eq, .ne, .lt, .le, .gt, .ge]
        static let stringOps: [Op] = [.eq, .ne, .beginsWith, .endsWith, .contains, .like]
    }

    struct Options: Equatable {
        var c = false
        var d = false
        var text: String { c && d ? "[cd]" : c ? "[c]" : d ? "[d]" : "" }
    }

    indirect enum Pred {
        case always(Bool)
        case cmp(String, Op, TV, Options, flipped: Bool, literal: Bool)
        case props(String, Op, String, Options)
        case and(Pred, Pred)
        case or(Pred, Pred)
        case not(Pred)
    }

    static let properties: [(String, PropertyType, Bool)] = [
        ("i", .int, false), ("oi", .int, true), ("d", .double, false), ("od", .double, true), ("f", .float, false),
        ("s", .string, false), ("os", .string, true), ("b", .bool, false), ("ob", .bool, true),
        ("t", .timestamp, false), ("ot", .timestamp, true), ("o", .objectId, false), ("ou", .uuid, true),
        ("bin", .binary, true),
    ]

    static func schema() -> Schema {
        makeSchema([("Q", properties.map { prop($0.0, $0.1, $0.2 ? .nullable : []) })])
    }

    // MARK: Brute force

    static func number(_ v: TV) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .float(let f): return Double(f)
        default: return nil
        }
    }

    static let diacritics: [Character: Character] = ["\u{E9}": "e", "\u{C9}": "E", "\u{FC}": "u", "\u{DC}": "U", "\u{E4}": "a"]

    static func fold(_ s: String, _ o: Options) -> String {
        var r = s
        if o.d { r = String(r.map { diacritics[$0] ?? $0 }) }
        if o.c { r = r.lowercased() }
        return r
    }

    static func like(_ s: [Unicode.Scalar], _ p: [Unicode.Scalar]) -> Bool {
        // match[i][j]: s[i...] matches p[j...]
        var memo = [[Bool?]](repeating: [Bool?](repeating: nil, count: p.count + 1), count: s.count + 1)
        func m(_ i: Int, _ j: Int) -> Bool {
            if let known = memo[i][j] { return known }
            let r: Bool
            if j == p.count { r = i == s.count }
            else if p[j] == "*" { r = m(i, j + 1) || (i < s.count && m(i + 1, j)) }
            else if i < s.count && (p[j] == "?" || p[j] == s[i]) { r = m(i + 1, j + 1) }
            else { r = false }
            memo[i][j] = r
            return r
        }
        return m(0, 0)
    }

    static func ordered(_ c: Int, _ op: Op) -> Bool {
        switch op {
        case .eq: return c == 0
        case .ne: return c != 0
        case .lt: return c < 0
        case .le: return c <= 0
        case .gt: return c > 0
        case .ge: return c >= 0
        default: return false
        }
    }

    static func cmp<T: Comparable>(_ a: T, _ b: T) -> Int { a == b ? 0 : (a < b ? -1 : 1) }

    static func bytesCompare(_ a: [UInt8], _ op: Op, _ b: [UInt8]) -> Bool {
        switch op {
        case .beginsWith: return a.starts(with: b)
        case .endsWith: return a.count >= b.count && Array(a.suffix(b.count)) == b
        case .contains:
            if b.isEmpty { return true }
            if b.count > a.count { return false }
            return (0...(a.count - b.count)).contains { Array(a[$0..<$0 + b.count]) == b }
        default:
            let c = a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
            return ordered(c, op)
        }
    }

    /// Realm's semantics, as the brief states them: null equals only null;
    /// an ordering with a null is false except <= and >= between two nulls;
    /// string operators never match null.
    static func compare(_ a: TV, _ op: Op, _ b: TV, _ o: Options) -> Bool {
        if a.isNull || b.isNull {
            let both = a.isNull && b.isNull
            switch op {
            case .eq, .le, .ge: return both
            case .ne: return !both
            default: return false
            }
        }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            if op == .like { return like(Array(fold(x, o).unicodeScalars), Array(fold(y, o).unicodeScalars)) }
            return bytesCompare(Array(fold(x, o).utf8), op, Array(fold(y, o).utf8))
        case (.binary(let x), .string(let y)): return bytesCompare(x, op, Array(y.utf8))
        case (.binary(let x), .binary(let y)): return bytesCompare(x, op, y)
        case (.bool(let x), .bool(let y)): return op == .eq ? x == y : x != y
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            return ordered(s1 != s2 ? cmp(s1, s2) : cmp(n1, n2), op)
        case (.oid(let x), .oid(let y)): return ordered(x.high != y.high ? cmp(x.high, y.high) : cmp(x.low, y.low), op)
        case (.uuid(let x), .uuid(let y)): return ordered(x.high != y.high ? cmp(x.high, y.high) : cmp(x.low, y.low), op)
        default:
            guard let x = number(a), let y = number(b) else { XCTFail("incomparable \(a) \(b)"); return false }
            return ordered(cmp(x, y), op)
        }
    }

    static func eval(_ p: Pred, _ row: [String: TV]) -> Bool {
        switch p {
        case .always(let b): return b
        case .cmp(let name, let op, let c, let o, _, _): return compare(row[name]!, op, c, o)
        case .props(let a, let op, let b, let o): return compare(row[a]!, op, row[b]!, o)
        case .and(let x, let y): return eval(x, row) && eval(y, row)
        case .or(let x, let y): return eval(x, row) || eval(y, row)
        case .not(let x): return !eval(x, row)
        }
    }

    // MARK: Rendering

    static func hex(_ v: UInt64, _ digits: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }

    static func literal(_ v: TV) -> String {
        switch v {
        case .null: return "nil"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .float(let f): return "\(Double(f))"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return "'\(s)'"
        case .binary(let b): return "bin(B64\"\(Data(b).base64EncodedString())\")"
        case .timestamp(let s, let n): return "T\(s):\(n)"
        case .oid(let o): return "oid(\(hex(o.high, 16))\(hex(UInt64(o.low), 8)))"
        case .uuid(let u):
            let h = hex(u.high, 16), l = hex(u.low, 16)
            return "uuid(\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12)))"
        case .decimal: fatalError("no decimal literals")
        case .link: fatalError("no link literals (links are passed as arguments)")
        case .nestedList, .nestedDict: fatalError("no nested collection literals")
        }
    }

    /// The predicate's text, collecting `$n` arguments.
    static func render(_ p: Pred, _ args: inout [TV]) -> String {
        switch p {
        case .always(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .cmp(let name, let op, let c, let o, let flipped, let isLiteral):
            let value: String
            if isLiteral {
                value = literal(c)
            } else {
                value = "$\(args.count)"
                args.append(c)
            }
            return flipped ? "\(value) \(op.mirrored.text)\(o.text) \(name)" : "\(name) \(op.text)\(o.text) \(value)"
        case .props(let a, let op, let b, let o): return "\(a) \(op.text)\(o.text) \(b)"
        case .and(let x, let y): return "(\(render(x, &args)) AND \(render(y, &args)))"
        case .or(let x, let y): return "(\(render(x, &args)) OR \(render(y, &args)))"
        case .not(let x): return "NOT \(render(x, &args))"
        }
    }

    // MARK: Random values

    static let letters = ["a", "b", "c", "A", "B", "\u{E9}", "\u{C9}", "\u{FC}", "\u{DC}", "\u{E4}", " "]

    static func randomString(_ rng: inout SeededRandom, maxLength: Int = 4) -> String {
        if Int.random(in: 0..<10, using: &rng) == 0 {
            return "prefixprefix-" + (0..<Int.random(in: 0...2, using: &rng)).map { _ in letters[Int.random(in: 0..<3, using: &rng)] }.joined()
        }
        return (0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in letters[Int.random(in: 0..<letters.count, using: &rng)] }.joined()
    }

    static func randomValue(_ type: PropertyType, nullable: Bool, _ rng: inout SeededRandom, nullChance: Int = 5) -> TV {
        if nullable && Int.random(in: 0..<nullChance, using: &rng) == 0 { return .null }
        let r = Int.random(in: 0..<1000, using: &rng)
        switch type {
        case .int: return .int(Int64(r % 9) - 4)
        case .double: return .double([-2.5, -1, 0, 0.5, 1, 2, 2.5, 3, -0.0][r % 9])
        case .float: return .float([-1.5, 0, 0.25, 1, 2.5, 3][r % 6])
        case .string: return .string(randomString(&rng))
        case .binary: return .binary(Array(["", "a", "ab", "ba", "abc", "b"][r % 6].utf8))
        case .bool: return .bool(r % 2 == 0)
        case .timestamp:
            let s = Int64(r % 5) - 2
            let n: Int32 = s > 0 ? Int32(r % 3) * 500 : s < 0 ? -Int32(r % 3) * 500 : 0
            return .timestamp(s, n)
        case .objectId: return .oid(ObjectIdBytes(high: UInt64(r % 4) << 62 | UInt64(r % 3), low: UInt32(r % 5) << 30))
        case .uuid: return .uuid(UUIDBytes(high: UInt64(r % 3) << 63 | UInt64(r % 2), low: UInt64(r % 4)))
        case .decimal128: return .decimal(DecimalArithmetic.zero)
        case .link, .mixed: fatalError("the random queries use scalar properties only")
        }
    }

    static func randomComparison(_ rng: inout SeededRandom) -> Pred {
        let (name, type, nullable) = properties[Int.random(in: 0..<properties.count, using: &rng)]
        var op: Op
        var options = Options()
        var constant: TV
        switch type {
        case .int, .double, .float:
            op = Op.comparisons.randomElement(using: &rng)!
            // Ints compared with doubles and doubles with ints.
            let v = randomValue([PropertyType.int, .double, .float].randomElement(using: &rng)!, nullable: false, &rng)
            constant = v.isNull ? v : (Bool.random(using: &rng) ? .double(number(v)!) : v)
            if case .float(let f) = constant { constant = .double(Double(f)) }
        case .string:
            op = (Op.stringOps + [.lt, .gt, .le, .ge]).randomElement(using: &rng)!
            if !op.isOrdering {
                options = Options(c: Bool.random(using: &rng), d: Int.random(in: 0..<3, using: &rng) == 0)
            }
            var s = randomString(&rng, maxLength: 3)
            if op == .like {
                s = (0..<Int.random(in: 0...4, using: &rng)).map { _ in ["*", "?", "a", "b", "A", "\u{E9}", "\u{C9}"].randomElement(using: &rng)! }.joined()
            }
            constant = .string(s)
        case .binary:
            op = [Op.eq, .ne, .beginsWith, .endsWith, .contains].randomElement(using: &rng)!
            constant = .binary(Array(["", "a", "b", "ab", "abc"].randomElement(using: &rng)!.utf8))
        case .bool:
            op = Op.equality.randomElement(using: &rng)!
            constant = .bool(Bool.random(using: &rng))
        default:
            op = Op.comparisons.randomElement(using: &rng)!
            constant = randomValue(type, nullable: false, &rng)
        }
        if nullable && (op == .eq || op == .ne) && options == Options() && Int.random(in: 0..<5, using: &rng) == 0 {
            constant = .null
        }
        let flippable = Op.comparisons.contains(op)
        let literal: Bool
        if case .binary = constant { literal = true } else { literal = Bool.random(using: &rng) }
        return .cmp(name, op, constant, options, flipped: flippable && Int.random(in: 0..<4, using: &rng) == 0, literal: literal)
    }

    static let propertyPairs: [(String, String, [Op], Bool)] = [
        ("i", "oi", Op.comparisons, false), ("i", "d", Op.comparisons, false), ("oi", "od", Op.comparisons, false),
        ("d", "f", Op.comparisons, false), ("od", "i", Op.comparisons, false),
        ("s", "os", Op.stringOps, true), ("os", "s", Op.comparisons, false),
        ("t", "ot", Op.comparisons, false), ("b", "ob", Op.equality, false), ("oi", "oi", Op.comparisons, false),
    ]

    static func randomPredicate(_ rng: inout SeededRandom, depth: Int = 0) -> Pred {
        let r = Int.random(in: 0..<100, using: &rng)
        if depth < 3 && r < 30 {
            let a = randomPredicate(&rng, depth: depth + 1), b = randomPredicate(&rng, depth: depth + 1)
            return r < 15 ? .and(a, b) : .or(a, b)
        }
        if depth < 3 && r < 38 { return .not(randomPredicate(&rng, depth: depth + 1)) }
        if r < 40 { return .always(r % 2 == 0) }
        if r < 52 {
            let (a, b, ops, strings) = propertyPairs[Int.random(in: 0..<propertyPairs.count, using: &rng)]
            let options = strings ? Options(c: Bool.random(using: &rng), d: false) : Options()
            return .props(a, ops.randomElement(using: &rng)!, b, options)
        }
        return randomComparison(&rng)
    }

    // MARK: Tests

    func testRandomPredicatesMatchBruteForce() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.schema())
        var rng = SeededRandom(seed: 0xF1EF)
        var rows: [Int64: [String: TV]] = [:]
        let names = Self.properties.map { $0.0 }
        try db.write {
            let data: [[TV]] = (0..<620).map { _ in Self.properties.map { Self.randomValue($0.1, nullable: $0.2, &rng) } }
            let keys = try db.createMany("Q", names, data)
            for (k, row) in zip(keys, data) { rows[k] = Dictionary(uniqueKeysWithValues: zip(names, row)) }
        }
        try db.write {
            for k in rows.keys.sorted() where Int.random(in: 0..<8, using: &rng) == 0 {
                try db.delete("Q", k)
                rows[k] = nil
            }
        }
        var checked = 0
        var nonTrivial = 0
        func check(_ count: Int, _ when: String) throws {
            for _ in 0..<count {
                let p = Self.randomPredicate(&rng)
                var args: [TV] = []
                let text = Self.render(p, &args)
                let expected = rows.filter { Self.eval(p, $0.value) }.keys.sorted()
                let results = try db.query("Q", text, args)
                let got = try results.allKeys()
                if got != expected {
                    let extra = Set(got).subtracting(expected).sorted().prefix(3).map { "\($0): \(rows[$0] ?? [:])" }
                    let missing = Set(expected).subtracting(got).sorted().prefix(3).map { "\($0): \(rows[$0]!)" }
                    XCTFail("\(when): \(text) args \(args): got \(got.count), expected \(expected.count); extra \(extra); missing \(missing)")
                }
                XCTAssertEqual(try db.query("Q", text, args).count(), expected.count, text)
                if expected.count > 0 && expected.count < rows.count { nonTrivial += 1 }
                checked += 1
            }
        }
        try check(300, "committed")
        // Change a third of the objects inside a write and query the dirty state.
        try db.realm.beginWrite()
        for k in rows.keys.sorted() where Int.random(in: 0..<3, using: &rng) == 0 {
            for (name, type, nullable) in Self.properties where Bool.random(using: &rng) {
                let v = Self.randomValue(type, nullable: nullable, &rng)
                try db.set("Q", k, name, v)
                rows[k]![name] = v
            }
        }
        let data: [[TV]] = (0..<40).map { _ in Self.properties.map { Self.randomValue($0.1, nullable: $0.2, &rng) } }
        for (k, row) in zip(try db.createMany("Q", names, data), data) { rows[k] = Dictionary(uniqueKeysWithValues: zip(names, row)) }
        try check(150, "in a write")
        try db.realm.commitWrite()
        try check(100, "after commit")
        XCTAssertEqual(checked, 550)
        XCTAssertGreaterThan(nonTrivial, 200, "the predicates should mostly select proper subsets")
    }

    /// Hand-picked cases of each rule, with exact expected keys.
    func testOperatorSemantics() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("S", [
            prop("s", .string, .nullable), prop("i", .int, .nullable), prop("d", .double), prop("t", .timestamp, .nullable),
            prop("o", .objectId, .nullable), prop("u", .uuid), prop("dec", .decimal128, .nullable), prop("b", .bool),
        ])]))
        let strings: [TV] = [.string("Hello"), .string("hello world"), .string("HÉllo"), .string("héllo"), .null, .string(""), .string("a*b"), .string("a?b"), .string("axb"), .string("\u{1F600}x")]
        let keys = try db.write { try db.createMany("S", ["s", "i", "d"], strings.enumerated().map { [$0.element, $0.offset % 3 == 0 ? .null : .int(Int64($0.offset)), .double(Double($0.offset) / 2)] }) }
        XCTAssertEqual(keys, Array(0..<10))
        func q(_ p: String, _ args: [TV] = []) throws -> [Int] { try db.keys("S", p, args).map { Int($0) } }
        XCTAssertEqual(try q("s == 'hello world'"), [1])
        XCTAssertEqual(try q("s ==[c] 'HELLO'"), [0])
        XCTAssertEqual(try q("s ==[c] 'héllo'"), [2, 3])
        XCTAssertEqual(try q("s ==[d] 'hello'"), [3])
        XCTAssertEqual(try q("s ==[cd] 'HELLO'"), [0, 2, 3])
        XCTAssertEqual(try q("s BEGINSWITH 'hel'"), [1])
        XCTAssertEqual(try q("s BEGINSWITH[c] 'hel'"), [0, 1])
        XCTAssertEqual(try q("s BEGINSWITH[cd] 'hel'"), [0, 1, 2, 3])
        XCTAssertEqual(try q("s ENDSWITH 'llo'"), [0, 2, 3])
        XCTAssertEqual(try q("s CONTAINS 'o w'"), [1])
        XCTAssertEqual(try q("s CONTAINS ''"), [0, 1, 2, 3, 5, 6, 7, 8, 9])
        XCTAssertEqual(try q("s BEGINSWITH ''"), [0, 1, 2, 3, 5, 6, 7, 8, 9])
        XCTAssertEqual(try q("s LIKE 'a*b'"), [6, 7, 8])
        XCTAssertEqual(try q("s LIKE 'a?b'"), [6, 7, 8])
        XCTAssertEqual(try q("s LIKE '?x'"), [9], "? matches one whole character")
        XCTAssertEqual(try q("s LIKE '*'"), [0, 1, 2, 3, 5, 6, 7, 8, 9])
        XCTAssertEqual(try q("s LIKE ''"), [5])
        XCTAssertEqual(try q("s LIKE[c] 'h*O'"), [0, 2, 3])
        XCTAssertEqual(try q("s LIKE 'h*o*'"), [1, 3])
        XCTAssertEqual(try q("s == nil"), [4])
        XCTAssertEqual(try q("s != nil"), [0, 1, 2, 3, 5, 6, 7, 8, 9])
        XCTAssertEqual(try q("s == ''"), [5])
        XCTAssertEqual(try q("NOT s CONTAINS 'l'"), [4, 5, 6, 7, 8, 9])
        XCTAssertEqual(try q("i == nil"), [0, 3, 6, 9])
        XCTAssertEqual(try q("i > 4"), [5, 7, 8])
        XCTAssertEqual(try q("i > 4.5"), [5, 7, 8])
        XCTAssertEqual(try q("i == 5.0"), [5])
        XCTAssertEqual(try q("i == 5.5"), [])
        XCTAssertEqual(try q("d == 2"), [4])
        XCTAssertEqual(try q("d < i"), [1, 2, 4, 5, 7, 8])
        XCTAssertEqual(try q("i <= d"), [], "nulls never order with numbers")
        XCTAssertEqual(try q("i <= i"), Array(0..<10), "<= holds between two nulls")
        XCTAssertEqual(try q("i < i"), [])
        XCTAssertEqual(try q("i == i"), Array(0..<10))
        XCTAssertEqual(try q("i != i"), [])
        XCTAssertEqual(try q("i > 1 AND i < 7 OR s == 'Hello'"), [0, 2, 4, 5])
        XCTAssertEqual(try q("i > 1 AND (i < 7 OR s == 'Hello')"), [2, 4, 5])
        XCTAssertEqual(try q("NOT (i > 1 AND i < 7)"), [0, 1, 3, 6, 7, 8, 9])
        XCTAssertEqual(try q("TRUEPREDICATE AND NOT FALSEPREDICATE").count, 10)
        XCTAssertEqual(try q("s == $0", [.string("Hello")]), [0])
        XCTAssertEqual(try q("$0 == s", [.null]), [4])
        XCTAssertEqual(try q("3 < i"), [4, 5, 7, 8])

        // Timestamps, object ids, uuids, decimals.
        try db.write {
            let tk = try db.createMany("S", ["t", "o", "u", "dec"], [
                [.timestamp(-1, -500), .oid(ObjectIdBytes(high: 0xFF00_0000_0000_0000, low: 1)), .uuid(UUIDBytes(high: 0xFFFF_0000_0000_0000, low: 0)), .decimal(Decimal128Bits(low: 25, high: 0x303E_0000_0000_0000))],
                [.timestamp(0, 0), .oid(ObjectIdBytes(high: 1, low: 0xFFFF_FFFF)), .uuid(UUIDBytes(high: 1, low: 2)), .decimal(Decimal128Bits(low: 3, high: 0x3040_0000_0000_0000))],
                [.timestamp(1, 999_999_999), .oid(ObjectIdBytes(high: 1, low: 0)), .uuid(UUIDBytes(high: 1, low: 1)), .null],
                [.timestamp(2, 0), .null, .uuid(UUIDBytes(high: 0, low: 0xFFFF_FFFF_FFFF_FFFF)), .decimal(Decimal128Bits(low: 7, high: 0xB040_0000_0000_0000))],
            ])
            XCTAssertEqual(tk, Array(10...13))
        }
        XCTAssertEqual(try q("t > T0:0"), [10 + 2, 10 + 3].map { $0 })
        XCTAssertEqual(try q("t < T0:0"), [10])
        XCTAssertEqual(try q("t >= T1:999999999 AND t < T2:0"), [12])
        XCTAssertEqual(try q("t == nil").count, 10)
        XCTAssertEqual(try q("t == $0", [.timestamp(-1, -500)]), [10])
        XCTAssertEqual(try q("o > oid(000000000000000100000000)"), [10, 11])
        XCTAssertEqual(try q("o < oid(ff0000000000000000000001)"), Array(0..<10).filter { _ in false } + [11, 12])
        XCTAssertEqual(try q("o == $0", [.oid(ObjectIdBytes(high: 1, low: 0xFFFF_FFFF))]), [11])
        XCTAssertEqual(try q("o == nil").count, 11)
        XCTAssertEqual(try q("u > uuid(00000000-0000-0001-0000-000000000001)"), [10, 11])
        XCTAssertEqual(try q("u <= $0", [.uuid(UUIDBytes(high: 1, low: 1))]).filter { $0 >= 10 }, [12, 13])
        XCTAssertEqual(try q("dec > 2"), [10, 11], "2.5 and 3")
        XCTAssertEqual(try q("dec < 0"), [13])
        XCTAssertEqual(try q("dec == 3"), [11])
        XCTAssertEqual(try q("dec == nil").count, 11)
        XCTAssertEqual(try q("b == false").count, 14)
    }

    func testStringsAndBinariesAreDistinctTypesBothWays() throws {
        // `bin == $0` accepted a string argument while `s == $0` refused a binary one.
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("B", [prop("s", .string), prop("bin", .binary, .nullable)])]))
        try db.write { _ = try db.createMany("B", ["s", "bin"], [[.string("ab"), .binary(Array("ab".utf8))], [.string("cd"), .null]]) }
        let ab = Array("ab".utf8)
        // Each type matches its own kind of value, as argument and as literal.
        XCTAssertEqual(try db.keys("B", "s == $0", [.string("ab")]), [0])
        XCTAssertEqual(try db.keys("B", "s == 'ab'"), [0])
        XCTAssertEqual(try db.keys("B", "bin == $0", [.binary(ab)]), [0])
        XCTAssertEqual(try db.keys("B", "bin BEGINSWITH $0", [.binary(Array("a".utf8))]), [0])
        XCTAssertEqual(try db.keys("B", "bin == bin(B64\"YWI=\")"), [0])
        // B64"..." alone is a string (realm-core's grammar).
        XCTAssertEqual(try db.keys("B", "s == B64\"YWI=\""), [0])
        XCTAssertEqual(try db.keys("B", "bin == $0", [.null]), [1])
        // Never the other kind: an argument is FIEF_ERR_QUERY_ARGUMENT, a literal FIEF_ERR_QUERY_INVALID.
        for op in ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"] {
            expectError(.queryArgument) { try db.query("B", "s \(op) $0", [.binary(ab)]) }
            expectError(.queryArgument) { try db.query("B", "bin \(op) $0", [.string("ab")]) }
            expectError(.queryInvalid) { try db.query("B", "s \(op) bin(B64\"YWI=\")") }
            expectError(.queryInvalid) { try db.query("B", "bin \(op) B64\"YWI=\"") }
            expectError(.queryInvalid) { try db.query("B", "bin \(op) 'ab'") }
        }
        expectError(.queryArgument) { try db.query("B", "$0 == bin", [.string("ab")]) }
        expectError(.queryInvalid) { try db.query("B", "s == bin") }
        let error = expectError(.queryArgument) { try db.query("B", "bin == $0", [.string("ab")]) }
        XCTAssertTrue(error?.message.contains("distinct types") ?? false, error?.message ?? "")
    }

    func testQueryErrors() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("E", [prop("s", .string), prop("i", .int, .nullable), prop("b", .bool), prop("t", .timestamp)])]))
        expectError(.querySyntax) { try db.query("E", "s ==") }
        expectError(.queryInvalid) { try db.query("E", "nope == 1") }
        expectError(.queryInvalid) { try db.query("E", "s > 5") }
        expectError(.queryInvalid) { try db.query("E", "i CONTAINS 'a'") }
        expectError(.queryInvalid) { try db.query("E", "i ==[c] 3") }
        expectError(.queryInvalid) { try db.query("E", "b > true") }
        expectError(.queryInvalid) { try db.query("E", "s == i") }
        expectError(.queryInvalid) { try db.query("E", "t == 5") }
        expectError(.queryArgument) { try db.query("E", "i == $1", [.int(1)]) }
        expectError(.queryArgument) { try db.query("E", "i == $0", [.string("x")]) }
        expectError(.queryArgument) { try db.query("E", "s == $0", [.binary(Array("x".utf8))]) }
        expectError(.invalidArgument) { try db.query("E", "t == $0", [.timestamp(1, -1)]) }
        expectError(.invalidArgument) { try db.query("E", "t > $0", [.timestamp(0, 1_000_000_000)]) }
        XCTAssertEqual(try db.query("E", "s == $0 OR i == $1 OR t == $2", [.string("x"), .double(2), .timestamp(1, 0)]).count(), 0)
    }
}
