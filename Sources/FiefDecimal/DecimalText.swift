/// Decimal128 values as text, both ways: a lenient parse that rounds (the
/// engine's query constants and string conversions, the overlay's
/// `Decimal128(string:)`), an exact parse that refuses what it would have to
/// round (the tool's import), and two written forms: RealmSwift's
/// `Decimal128.stringValue` and the General Decimal Arithmetic's
/// to-scientific-string (the tool's JSON, as MongoDB writes it).
extension DecimalArithmetic {
    /// The decimal a text spells, exactly (rounded half to even past 34
    /// digits): an optional sign, digits with an optional point, an
    /// optional exponent (`-12.5`, `+8.1E-8`, `.5`, `10.`), or `inf`,
    /// `infinity`, `nan` in any case; surrounding spaces allowed.  nil for
    /// anything else.
    public static func parse<Bytes: Collection>(_ text: Bytes) -> Decimal128Bits? where Bytes.Element == UInt8 {
        var bytes = Array(text)
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        var i = 0
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        let word = String(decoding: bytes[i...], as: UTF8.self).lowercased()
        if word == "inf" || word == "infinity" { return infinity(negative: negative) }
        if word == "nan" { return nan }
        var coefficient: UInt128 = 0
        var exponent = 0
        var digits = 0
        var dropped = false
        var sawPoint = false
        var droppedNonZero = false
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if b >= 0x30 && b <= 0x39 {
                digits += 1
                if coefficient < 1_000_000_000_000_000_000_000_000_000_000_000_000 / 10 {
                    coefficient = coefficient * 10 + UInt128(b - 0x30)
                    if sawPoint { exponent -= 1 }
                } else {
                    // Beyond 37 digits: the digit only moves the exponent.
                    dropped = true
                    if b != 0x30 { droppedNonZero = true }
                    if !sawPoint { exponent += 1 }
                }
            } else {
                break
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        if i < bytes.count {
            guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var exponentNegative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            var exponentDigits = 0
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                if written < 100_000 { written = written * 10 + Int(bytes[i] - 0x30) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0, i == bytes.count else { return nil }
            exponent += exponentNegative ? -written : written
        }
        if dropped && droppedNonZero {
            // A sticky digit so that rounding at 34 digits sees the dropped tail.
            coefficient = coefficient * 10 + 1
            exponent -= 1
        }
        return finite(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// The decimal a text names, exactly: `[+-]` digits with an optional
    /// point, an optional exponent (`e` or `E`, a sign, digits), or `nan`,
    /// `inf`, `infinity` in any case; no spaces.  A failure says why when
    /// the text is not a decimal, needs more than 34 significant digits,
    /// or an exponent beyond decimal128's range.
    public static func parseExactly(_ text: String) -> Result<Decimal128Bits, DecimalParseError> {
        var rest = Substring(text)
        var negative = false
        if rest.first == "-" || rest.first == "+" {
            negative = rest.first == "-"
            rest = rest.dropFirst()
        }
        switch rest.lowercased() {
        case "nan": return .success(nan)
        case "inf", "infinity": return .success(infinity(negative: negative))
        default: break
        }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var seenPoint = false
        let utf8 = rest.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits.append(byte - UInt8(ascii: "0"))
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else {
                break
            }
            index = utf8.index(after: index)
        }
        guard !digits.isEmpty else { return .failure(.notADecimal) }
        var exponent = 0
        if index != utf8.endIndex {
            guard utf8[index] == UInt8(ascii: "e") || utf8[index] == UInt8(ascii: "E") else { return .failure(.notADecimal) }
            let exponentText = String(rest[utf8.index(after: index)...])
            guard let written = Int(exponentText.hasPrefix("+") ? String(exponentText.dropFirst()) : exponentText),
                  abs(written) < 1_000_000 else { return .failure(.notADecimal) }
            exponent = written
        }
        exponent -= fractionDigits
        while digits.count > 1 && digits.first == 0 { digits.removeFirst() }
        let isZero = digits == [0]
        // More digits than decimal128 holds: exact only when the extra ones are trailing zeros.
        while digits.count > maxDigits && digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        guard digits.count <= maxDigits else { return .failure(.tooManyDigits) }
        var coefficient: UInt128 = 0
        for digit in digits { coefficient = coefficient * 10 + UInt128(digit) }
        if isZero {
            exponent = Swift.min(Swift.max(exponent, minExponent), maxExponent)
        }
        // Too large an exponent: exact if the coefficient can take the zeros.
        while exponent > maxExponent && coefficient * 10 < coefficientLimit {
            coefficient *= 10
            exponent -= 1
        }
        // Too small an exponent: exact if the coefficient ends in zeros.
        while exponent < minExponent && coefficient % 10 == 0 && coefficient != 0 {
            coefficient /= 10
            exponent += 1
        }
        guard exponent >= minExponent && exponent <= maxExponent else { return .failure(.exponentOutOfRange) }
        // In range and at most 34 digits: encoded as it is, without rounding.
        return .success(finite(negative: negative, coefficient: coefficient, exponent: exponent))
    }

    /// `d` as RealmSwift's `Decimal128.stringValue` writes it: the
    /// coefficient's digits with the decimal point moved left as far as the
    /// exponent allows (but not past the first digit), an `E<exponent>` for
    /// what is left (`"12.5"`, `"1E3"`, `"5E-3"`, `"1.5E-10"`), then trailing
    /// zeros after the point dropped (`"1.0"` is `"1"`, `"12.50"` is
    /// `"12.5"`).  A coefficient beyond 64 bits is written whole with a
    /// signed exponent (`"+1234567890123456789012E-2"`), as realm-core does.
    /// `"NaN"` (`"-NaN"` with the sign bit), `"Inf"`, `"-Inf"` for the
    /// special values.
    public static func realmText(_ d: Decimal128Bits) -> String {
        switch kind(d) {
        case .nan: return isSignMinus(d) ? "-NaN" : "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case let .finite(negative, coefficient, exponent):
            let digits = String(coefficient)
            if coefficient > UInt128(UInt64.max) {
                return (negative ? "-" : "+") + digits + "E" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
            }
            var leading = digits.count
            var remaining = exponent
            while leading > 1 && remaining != 0 {
                leading -= 1
                remaining += 1
            }
            var integerPart = String(digits.prefix(leading))
            var fraction = String(digits.dropFirst(leading))
            while fraction.last == "0" { fraction.removeLast() }
            if negative { integerPart = "-" + integerPart }
            let mantissa = fraction.isEmpty ? integerPart : integerPart + "." + fraction
            return remaining == 0 ? mantissa : mantissa + "E" + String(remaining)
        }
    }

    /// `d` in the General Decimal Arithmetic's to-scientific-string form
    /// (what MongoDB writes), exact: the coefficient and exponent survive
    /// (`"1.50"`, `"-0"`, `"1.2E+5"`, `"1E-7"`, `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`); `parseExactly` reads it back to the same bits.
    public static func scientificText(_ d: Decimal128Bits) -> String {
        switch kind(d) {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Infinity" : "Infinity"
        case let .finite(negative, coefficient, exponent):
            let sign = negative ? "-" : ""
            let digits = String(coefficient)
            let adjusted = exponent + digits.count - 1
            if exponent <= 0 && adjusted >= -6 {
                if exponent == 0 { return sign + digits }
                let point = digits.count + exponent
                if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
                return sign + digits.prefix(point) + "." + digits.dropFirst(point)
            }
            var text = sign + digits.prefix(1)
            if digits.count > 1 { text += "." + digits.dropFirst() }
            return text + "E" + (adjusted >= 0 ? "+" : "-") + String(Swift.abs(adjusted))
        }
    }
}

/// Why `DecimalArithmetic.parseExactly` refuses a text.
public enum DecimalParseError: Error, Sendable, CustomStringConvertible {
    case notADecimal, tooManyDigits, exponentOutOfRange

    public var description: String {
        switch self {
        case .notADecimal: return "not a decimal number"
        case .tooManyDigits: return "more than 34 significant digits"
        case .exponentOutOfRange: return "exponent out of decimal128's range"
        }
    }
}
