import CFief

/// Decimal128 values as text, both ways, for `dump` and `import`: the C ABI
/// carries decimals as their IEEE 754-2008 BID bits, and the JSON needs
/// their digits ({"$numberDecimal": "1.50"}).  Exact in both directions:
/// the text keeps the coefficient and exponent (1.50 stays 1.50).
enum DecimalText {
    private static let exponentBias = 6176
    private static let minimumExponent = -6176
    private static let maximumExponent = 6111
    private static let maximumDigits = 34
    private static let coefficientLimit: UInt128 = {
        var value: UInt128 = 1
        for _ in 0..<34 { value *= 10 }
        return value
    }()

    /// The decimal's text in the General Decimal Arithmetic's
    /// to-scientific-string form (what MongoDB writes): "1.50", "-0",
    /// "1.2E+5", "1E-7", "NaN", "Infinity", "-Infinity".
    static func text(_ value: fief_decimal128_t) -> String {
        let low = value.w.0, high = value.w.1
        let negative = high >> 63 == 1
        let sign = negative ? "-" : ""
        let exponentBits: UInt64
        var coefficient: UInt128
        if (high >> 61) & 3 == 3 {
            switch (high >> 58) & 0x1F {
            case 0b11111: return "NaN"
            case 0b11110: return sign + "Infinity"
            default:
                // The second encoding form only holds coefficients above 10^34: non-canonical, read as 0.
                exponentBits = (high >> 47) & 0x3FFF
                coefficient = 0
            }
        } else {
            exponentBits = (high >> 49) & 0x3FFF
            coefficient = UInt128(high & ((1 << 49) - 1)) << 64 | UInt128(low)
            if coefficient >= coefficientLimit { coefficient = 0 }
        }
        let exponent = Int(exponentBits) - exponentBias
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
        return text + "E" + (adjusted >= 0 ? "+" : "-") + String(abs(adjusted))
    }

    /// The decimal a text names, exactly; nil (with the reason) when the
    /// text is not a decimal or needs more than 34 digits or a wider exponent.
    static func parse(_ text: String) -> Result<fief_decimal128_t, DecimalTextError> {
        var rest = Substring(text)
        var negative = false
        if rest.first == "-" || rest.first == "+" {
            negative = rest.first == "-"
            rest = rest.dropFirst()
        }
        switch rest.lowercased() {
        case "nan": return .success(encode(high: 0b11111 << 58, low: 0))
        case "inf", "infinity": return .success(encode(high: (negative ? 1 << 63 : 0) | (0b11110 << 58), low: 0))
        default: break
        }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var seenPoint = false
        var index = rest.utf8.startIndex
        let utf8 = rest.utf8
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
        while digits.count > maximumDigits && digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        guard digits.count <= maximumDigits else { return .failure(.tooManyDigits) }
        var coefficient: UInt128 = 0
        for digit in digits { coefficient = coefficient * 10 + UInt128(digit) }
        if isZero {
            exponent = min(max(exponent, minimumExponent), maximumExponent)
        }
        // Too large an exponent: exact if the coefficient can take the zeros.
        while exponent > maximumExponent && coefficient * 10 < coefficientLimit {
            coefficient *= 10
            exponent -= 1
        }
        // Too small an exponent: exact if the coefficient ends in zeros.
        while exponent < minimumExponent && coefficient % 10 == 0 && coefficient != 0 {
            coefficient /= 10
            exponent += 1
        }
        guard exponent >= minimumExponent && exponent <= maximumExponent else { return .failure(.exponentOutOfRange) }
        let biased = UInt64(exponent + exponentBias)
        let high = (negative ? 1 << 63 : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        return .success(encode(high: high, low: UInt64(truncatingIfNeeded: coefficient)))
    }

    private static func encode(high: UInt64, low: UInt64) -> fief_decimal128_t {
        var value = fief_decimal128_t()
        value.w = (low, high)
        return value
    }
}

/// Why a text is not a decimal128.
enum DecimalTextError: Error, CustomStringConvertible {
    case notADecimal, tooManyDigits, exponentOutOfRange

    var description: String {
        switch self {
        case .notADecimal: return "not a decimal number"
        case .tooManyDigits: return "more than 34 significant digits"
        case .exponentOutOfRange: return "exponent out of decimal128's range"
        }
    }
}
