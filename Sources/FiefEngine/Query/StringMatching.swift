import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// String comparisons of the query language over UTF-8 bytes: ordering,
/// BEGINSWITH / ENDSWITH / CONTAINS / LIKE, with `[c]` (case-insensitive)
/// and `[d]` (diacritic-insensitive) folding.
enum StringMatching {
    static func compare(_ s: UnsafeRawBufferPointer, _ op: QueryOperator, _ pattern: UnsafeRawBufferPointer, _ options: QueryStringOptions) -> Bool {
        if options.isEmpty {
            return compareRaw(s, op, pattern)
        }
        let a = fold(s, options), b = fold(pattern, options)
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareRaw(x, op, y) } }
    }

    private static func compareRaw(_ s: UnsafeRawBufferPointer, _ op: QueryOperator, _ p: UnsafeRawBufferPointer) -> Bool {
        switch op {
        case .equal: return s.count == p.count && bytesEqual(s, 0, p)
        case .notEqual: return !(s.count == p.count && bytesEqual(s, 0, p))
        case .beginsWith: return s.count >= p.count && bytesEqual(s, 0, p)
        case .endsWith: return s.count >= p.count && bytesEqual(s, s.count - p.count, p)
        case .contains:
            if p.count == 0 { return true }
            if p.count > s.count { return false }
            for start in 0...(s.count - p.count) where s[start] == p[0] && bytesEqual(s, start, p) { return true }
            return false
        case .like: return like(s, 0, p, 0)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let n = min(s.count, p.count)
            var c = n == 0 ? 0 : Int(memcmp(s.baseAddress!, p.baseAddress!, n))
            if c == 0 { c = s.count == p.count ? 0 : (s.count < p.count ? -1 : 1) }
            return QueryEvaluator.ordered(c < 0 ? -1 : (c > 0 ? 1 : 0), op)
        }
    }

    @inline(__always)
    private static func bytesEqual(_ s: UnsafeRawBufferPointer, _ offset: Int, _ p: UnsafeRawBufferPointer) -> Bool {
        p.count == 0 || memcmp(s.baseAddress! + offset, p.baseAddress!, p.count) == 0
    }

    /// `*` matches any run of characters, `?` exactly one (a whole UTF-8 sequence).
    private static func like(_ s: UnsafeRawBufferPointer, _ i: Int, _ p: UnsafeRawBufferPointer, _ j: Int) -> Bool {
        var i = i, j = j
        var starI = -1, starJ = -1
        while i < s.count {
            if j < p.count && p[j] == UInt8(ascii: "*") {
                starJ = j; starI = i; j += 1
            } else if j < p.count && p[j] == UInt8(ascii: "?") {
                i += sequenceLength(s[i]); j += 1
            } else if j < p.count && p[j] == s[i] {
                i += 1; j += 1
            } else if starJ >= 0 {
                starI += sequenceLength(s[starI])
                i = starI; j = starJ + 1
            } else {
                return false
            }
        }
        while j < p.count && p[j] == UInt8(ascii: "*") { j += 1 }
        return j == p.count && i == s.count || (j == p.count && i >= s.count)
    }

    @inline(__always)
    private static func sequenceLength(_ lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// Lower-case (and strip diacritics from) a UTF-8 string.
    static func fold(_ bytes: UnsafeRawBufferPointer, _ options: QueryStringOptions) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        if !bytes.contains(where: { $0 >= 0x80 }) {
            for b in bytes { out.append(options.contains(.caseInsensitive) && b >= 65 && b <= 90 ? b + 32 : b) }
            return out
        }
        let string = String(decoding: bytes, as: UTF8.self)
        for scalar in string.unicodeScalars {
            var s = scalar
            if options.contains(.diacriticInsensitive) { s = stripDiacritic(s) }
            if options.contains(.caseInsensitive) {
                for lower in s.properties.lowercaseMapping.unicodeScalars { out.append(contentsOf: String(lower).utf8) }
            } else {
                out.append(contentsOf: String(s).utf8)
            }
        }
        return out
    }

    /// The base letter of a precomposed Latin letter with a diacritic.
    private static func stripDiacritic(_ s: Unicode.Scalar) -> Unicode.Scalar {
        let v = s.value
        guard v >= 0xC0 && v <= 0x17F else { return s }
        let table: [(ClosedRange<UInt32>, Character)] = [
            (0xC0...0xC5, "A"), (0xC7...0xC7, "C"), (0xC8...0xCB, "E"), (0xCC...0xCF, "I"), (0xD1...0xD1, "N"),
            (0xD2...0xD6, "O"), (0xD8...0xD8, "O"), (0xD9...0xDC, "U"), (0xDD...0xDD, "Y"),
            (0xE0...0xE5, "a"), (0xE7...0xE7, "c"), (0xE8...0xEB, "e"), (0xEC...0xEF, "i"), (0xF1...0xF1, "n"),
            (0xF2...0xF6, "o"), (0xF8...0xF8, "o"), (0xF9...0xFC, "u"), (0xFD...0xFD, "y"), (0xFF...0xFF, "y"),
        ]
        for (range, base) in table where range.contains(v) { return base.unicodeScalars.first! }
        if v >= 0x100 && v <= 0x17F {
            // Latin Extended-A pairs letters (upper, lower) with the base letter's order.
            let bases: [Character] = ["A","a","A","a","A","a","C","c","C","c","C","c","C","c","D","d","D","d","E","e","E","e","E","e","E","e","E","e","G","g","G","g","G","g","G","g","H","h","H","h","I","i","I","i","I","i","I","i","I","i"]
            let index = Int(v - 0x100)
            if index < bases.count { return bases[index].unicodeScalars.first! }
        }
        return s
    }
}

/// Numbers spelled by strings, as realm-core reads a string constant
/// compared with a numeric property (`intCol == '5'`): like a C++ stream
/// extraction, leading spaces are skipped and the longest number at the
/// start is taken (`'5 apples'` is 5); for floats and doubles `nan`, `inf`
/// and `infinity` (any case, with a sign) are read too.  nil when the text
/// does not start with a number, or the integer overflows.
enum NumericText {
    static func integer(_ text: [UInt8]) -> Int64? {
        var i = skipSpaces(text)
        var negative = false
        if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var magnitude: UInt64 = 0
        var digits = 0
        while i < text.count, text[i] >= 0x30, text[i] <= 0x39 {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(text[i] - 0x30))
            if o1 || o2 { return nil }
            magnitude = sum
            digits += 1
            i += 1
        }
        guard digits > 0 else { return nil }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func double(_ text: [UInt8]) -> Double? {
        let start = skipSpaces(text)
        let word = String(decoding: text[start...], as: UTF8.self).lowercased()
        switch word {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        var i = start
        if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < text.count, text[i] >= 0x30, text[i] <= 0x39 { i += 1; digits += 1 }
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < text.count, text[i] >= 0x30, text[i] <= 0x39 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        var end = i
        if i < text.count, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < text.count, text[j] == UInt8(ascii: "+") || text[j] == UInt8(ascii: "-") { j += 1 }
            let exponentStart = j
            while j < text.count, text[j] >= 0x30, text[j] <= 0x39 { j += 1 }
            if j > exponentStart { end = j }
        }
        return Double(String(decoding: text[start..<end], as: UTF8.self))
    }

    private static func skipSpaces(_ text: [UInt8]) -> Int {
        var i = 0
        while i < text.count, text[i] == 0x20 || (text[i] >= 0x09 && text[i] <= 0x0D) { i += 1 }
        return i
    }
}
