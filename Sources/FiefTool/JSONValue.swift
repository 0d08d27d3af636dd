/// A parsed JSON value for `fief import`.  Our own small parser rather than
/// Foundation's: it keeps the order of an object's keys, keeps integers
/// exact (64-bit object keys), and says where a syntax error is.
indirect enum JSONValue {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order they were written.
    case object([(key: String, value: JSONValue)])

    /// The value of `key` in an object, or nil.
    subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// How the value is shown in an error message: short, in JSON.
    var shortDescription: String {
        let text: String
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .integer(i): return String(i)
        case let .number(d): return String(d)
        case let .string(s): text = JSONText.string(s)
        case .array: text = "an array"
        case let .object(members):
            guard let first = members.first else { return "{}" }
            text = "{" + JSONText.string(first.key) + ": " + first.value.shortDescription + (members.count > 1 ? ", ...}" : "}")
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}

/// A JSON syntax error, with the column (1-based, in bytes) where it was found.
struct JSONSyntaxError: Error {
    var column: Int
    var reason: String
}

/// Parses one JSON text (one line of a dump).
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0

    static func parse(_ text: Substring) throws -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Nesting deeper than this is refused rather than risking the stack;
    /// `fief dump` stops at the same depth, so what it writes imports.
    static let maximumDepth = 512

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(column: position + 1, reason: reason)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw error("invalid literal (expected \(literal))")
        }
        position += expected.count
        return value
    }

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < JSONParser.maximumDepth else { throw error("nested more than \(JSONParser.maximumDepth) deep") }
        guard let byte = current else { throw error("unexpected end of line") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(String(decoding: [byte], as: UTF8.self))'")
        }
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "}")?: position += 1; return .object(members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "]")?: position += 1; return .array(elements)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigit(bytes[position]) else { throw error("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func parseString() throws -> String {
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw error("the string before this point is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                guard let escaped = current else { throw error("unterminated string") }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a lone UTF-16 surrogate in a \\u escape")
                        }
                        position += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone UTF-16 surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone UTF-16 surrogate in a \\u escape") }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw error("invalid escape '\\\(String(decoding: [escaped], as: UTF8.self))'")
                }
            case 0..<0x20: position -= 1; throw error("a control character in a string (escape it)")
            default: utf8.append(byte)
            }
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = current, isDigit(next) { throw error("a number with a leading zero") }
        } else {
            while let d = current, isDigit(d) { position += 1 }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let d = current, isDigit(d) else { throw error("invalid number (no digit after '.')") }
            while let d = current, isDigit(d) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let d = current, isDigit(d) else { throw error("invalid number (no digit in the exponent)") }
            while let d = current, isDigit(d) { position += 1 }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text) else { throw error("invalid number") }
        return .number(number)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// The value of a hexadecimal digit, or nil.
func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// Writing JSON text.
enum JSONText {
    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Bytes as lowercase hexadecimal.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func base64(_ bytes: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(base64Alphabet[Int(n >> 18 & 63)])
            out.append(base64Alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? base64Alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? base64Alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes standard base64 (padding required when the length needs it); nil if invalid.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            var quantum: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                let value: UInt32
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
                case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
                case UInt8(ascii: "+"): value = 62
                case UInt8(ascii: "/"): value = 63
                case UInt8(ascii: "=") where index + 4 == input.count && offset >= 2: padding += 1; value = 0
                default: return nil
                }
                if padding > 0 && byte != UInt8(ascii: "=") { return nil }
                quantum = quantum << 6 | value
            }
            out.append(UInt8(quantum >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(quantum >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(quantum & 0xFF)) }
            index += 4
        }
        return out
    }
}
