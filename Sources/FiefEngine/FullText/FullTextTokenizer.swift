import FiefStorage

/// Realm's tokens: runs of letters and digits of ASCII and of the Latin-1
/// supplement, lower-cased and without diacritics (`Café` is `cafe`);
/// everything else separates tokens (`full-text` is two).  A token keeps
/// its first `maxTokenBytes` bytes.
///
/// Details kept from realm-core: `å`, `æ`, `ø`, `ð`, `þ` and `ß` stay as
/// they are (upper case folded to them); `×` and `÷` belong to a token but
/// leave nothing in it (`2×3` is `23`); `ÿ`, other two-byte characters
/// (Greek, Cyrillic...) and every character of three or four bytes
/// (CJK, emoji) separate tokens.
enum FullTextTokenizer {
    /// The longest token kept, in bytes (longer runs are cut there).
    static let maxTokenBytes = 64

    /// The folded form of Latin-1 letter `u` (U+00C0 ... U+00FE), as a code
    /// point (0: the character is part of a token but adds nothing).
    @inline(__always)
    static func foldedLatin1(_ u: UInt32) -> UInt32 {
        let lower = u >= 0xE0 ? u : u + 0x20    // U+00C0...U+00DE → U+00E0...U+00FE (ß has no capital here)
        switch lower {
        case 0xE0...0xE4: return 0x61            // à á â ã ä → a
        case 0xE7: return 0x63                   // ç → c
        case 0xE8...0xEB: return 0x65            // è é ê ë → e
        case 0xEC...0xEF: return 0x69            // ì í î ï → i
        case 0xF1: return 0x6E                   // ñ → n
        case 0xF2...0xF6: return 0x6F            // ò ó ô õ ö → o
        case 0xF7: return 0                      // × and ÷
        case 0xF9...0xFC: return 0x75            // ù ú û ü → u
        case 0xFD: return 0x79                   // ý → y
        case 0xFF: return u == 0xDF ? 0xDF : 0xFF    // ß stays ß
        default: return lower                    // å æ ð ø þ
        }
    }

    /// Call `body` with each token of `text`, in order, repeats included;
    /// the token is a view into a buffer that is valid during the call.
    @inline(__always)
    static func forEachToken(_ text: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxTokenBytes) { buffer in
            var size = 0
            var building = false
            var i = 0
            let n = text.count
            @inline(__always) func emit() {
                body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: size))
                size = 0
                building = false
            }
            while i < n {
                let c = text[i]
                var letter = false
                if (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7A) {
                    letter = true
                    if size < maxTokenBytes { buffer[size] = c; size += 1 }
                } else if c >= 0x41 && c <= 0x5A {
                    letter = true
                    if size < maxTokenBytes { buffer[size] = c + 0x20; size += 1 }
                } else if c >= 0x80 {
                    if c & 0xE0 == 0xC0 {
                        i += 1
                        let next = i < n ? text[i] : 0
                        let u = (UInt32(c & 0x1F) << 6) | UInt32(next & 0x3F)
                        if u >= 0xC0 && u < 0xFF {
                            letter = true
                            let o = foldedLatin1(u)
                            if o != 0 && o < 0x80 {
                                if size < maxTokenBytes { buffer[size] = UInt8(o); size += 1 }
                            } else if o != 0 && size < maxTokenBytes - 1 {
                                buffer[size] = UInt8(0xC0 | (o >> 6))
                                buffer[size + 1] = UInt8(0x80 | (o & 0x3F))
                                size += 2
                            }
                        }
                    } else if c & 0xF0 == 0xE0 {
                        i += 2
                    } else if c & 0xF8 == 0xF0 {
                        i += 3
                    }
                }
                if letter {
                    building = true
                } else if building {
                    emit()
                }
                i += 1
            }
            if building { emit() }
        }
    }

    /// The distinct tokens of `text`, sorted by bytes.
    static func tokens(_ text: UnsafeRawBufferPointer) -> [[UInt8]] {
        var tokens: [[UInt8]] = []
        forEachToken(text) { tokens.append(Array($0)) }
        if tokens.count < 2 { return tokens }
        tokens.sort { $0.lexicographicallyPrecedes($1) }
        var unique: [[UInt8]] = [tokens[0]]
        unique.reserveCapacity(tokens.count)
        for token in tokens.dropFirst() where token != unique[unique.count - 1] { unique.append(token) }
        return unique
    }

    /// The distinct tokens of a stored value (a string; null has none).
    static func tokens(of value: Value) -> [[UInt8]] {
        if case .string(let text) = value { return tokens(text) }
        return []
    }
}
