import FiefStorage

/// min, max, sum and average over a property of the objects of results, or
/// over the elements of a collection of values.  Values are read where they
/// are stored (column chunks, list segments) and folded one by one: no row
/// is copied or allocated.
///
/// Realm's rules: nulls are skipped; with nothing left, min, max and average
/// are null and sum is 0.  min and max take int, float, double, decimal128
/// and timestamp values (NaN has no order: min and max skip it); sum and
/// average take the numbers only.  The sum of ints is an int (wrapping on
/// overflow), of floats and doubles a double, of decimals a decimal; the
/// average of ints, floats and doubles is a double, of decimals a decimal.
///
/// Mixed values (properties and collection elements), as realm-core
/// aggregates them: min and max take every non-null value and compare them
/// in Realm's mixed order (`MixedOrder`: a bool below every number, a
/// string above, ...; NaN and nested collections are skipped); sum and average take the numbers
/// only (ints, floats, doubles and decimals; other values and NaN are
/// skipped), each added as a decimal128 (a double rounded to 15 significant
/// digits, a float to 7), and give a decimal128 (a sum of none is decimal 0).
public enum AggregateOperation: Int32, Sendable, CaseIterable {
    case min = 1
    case max = 2
    case sum = 3
    case average = 4

    public var name: String {
        switch self {
        case .min: return "min"
        case .max: return "max"
        case .sum: return "sum"
        case .average: return "average"
        }
    }
}

/// Folds values of one type into a min, max, sum or average.
struct Aggregator {
    let operation: AggregateOperation
    let type: PropertyType
    private(set) var count = 0
    /// int: the sum (wrapping), or the extreme so far.
    private var int: Int64 = 0
    private var intOverflowed = false
    /// float, double: the sum or the extreme; int: the sum as a double (for
    /// the average once the int sum overflowed).
    private var double: Double = 0
    private var decimal = DecimalArithmetic.zero
    private var seconds: Int64 = 0
    private var nanoseconds: Int32 = 0
    /// Mixed values: the min or max so far (a view, read where it is stored).
    private var extreme: Value = .null
    /// Mixed sums: the sum so far, exactly, as coefficient × 10^exponent
    /// while its coefficient has at most 34 digits (each addition then is
    /// exact, as decimal128's); beyond, `decimal` carries it on, rounded.
    private var exactCoefficient: Int128 = 0
    private var exactExponent = 0
    private var exactActive = true

    /// Check that `operation` applies to values of `type` (a property that
    /// is no collection and no link); `subject` names them in messages
    /// ("'Person.age'", "the values of 'Person.scores'").
    static func check(_ operation: AggregateOperation, _ type: PropertyType, subject: @autoclosure () -> String) throws(FiefError) {
        // Mixed values hold anything: each operation takes what it can.
        if type == .mixed { return }
        let numeric = type == .int || type == .float || type == .double || type == .decimal128
        let fits = operation == .min || operation == .max ? numeric || type == .timestamp : numeric
        guard fits else {
            let accepted = operation == .min || operation == .max
                ? "int, float, double, decimal128 or timestamp values"
                : "numbers (int, float, double or decimal128 values)"
            throw FiefError(.typeMismatch, "cannot take the \(operation.name) of \(subject()): it holds \(type.name) values, and \(operation.name) takes \(accepted)")
        }
    }

    init(_ operation: AggregateOperation, _ type: PropertyType) {
        self.operation = operation
        self.type = type
    }

    @inline(__always)
    mutating func add(_ value: Value) {
        if type == .mixed { return addMixed(value) }
        switch value {
        case .null: return
        case .int(let i): addInt(i)
        case .float(let f): addDouble(Double(f))
        case .double(let d): addDouble(d)
        case .decimal128(let d): addDecimal(d)
        case .timestamp(let s, let ns): addTimestamp(s, ns)
        default: return
        }
    }

    @inline(__always)
    mutating func addInt(_ i: Int64) {
        switch operation {
        case .min: if count == 0 || i < int { int = i }
        case .max: if count == 0 || i > int { int = i }
        case .sum, .average:
            let (sum, overflow) = int.addingReportingOverflow(i)
            int = sum
            if overflow { intOverflowed = true }
            double += Double(i)
        }
        count += 1
    }

    @inline(__always)
    mutating func addDouble(_ d: Double) {
        switch operation {
        case .min:
            if d.isNaN { return }
            if count == 0 || d < double { double = d }
        case .max:
            if d.isNaN { return }
            if count == 0 || d > double { double = d }
        case .sum, .average:
            double += d
        }
        count += 1
    }

    mutating func addDecimal(_ d: Decimal128Bits) {
        switch operation {
        case .min, .max:
            if DecimalArithmetic.isNaN(d) { return }
            if count == 0 {
                decimal = d
            } else if let c = DecimalArithmetic.compare(d, decimal), operation == .min ? c < 0 : c > 0 {
                decimal = d
            }
        case .sum, .average:
            decimal = count == 0 ? DecimalArithmetic.add(DecimalArithmetic.zero, d) : DecimalArithmetic.add(decimal, d)
        }
        count += 1
    }

    @inline(__always)
    mutating func addTimestamp(_ s: Int64, _ ns: Int32) {
        if count > 0 {
            let less = s != seconds ? s < seconds : ns < nanoseconds
            let greater = s != seconds ? s > seconds : ns > nanoseconds
            if operation == .min ? !less : !greater { count += 1; return }
        }
        seconds = s
        nanoseconds = ns
        count += 1
    }

    /// A mixed value: min and max compare every non-null value in Realm's
    /// mixed order; sum and average add the numbers as decimals.
    mutating func addMixed(_ value: Value) {
        switch operation {
        case .min, .max:
            // A nested list or dictionary has no value to compare: skipped.
            if value.isNull || value.nestedID != nil || MixedOrder.isNaN(value) { return }
            if count > 0 {
                let c = MixedOrder.compare(value, extreme)
                if operation == .min ? c >= 0 : c <= 0 { count += 1; return }
            }
            extreme = value
        case .sum, .average:
            switch value {
            case .int(let i): addExactly(i < 0, UInt128(i.magnitude), 0)
            case .float(let f):
                if f.isNaN { return }
                addBinaryFloat(Double(f), digits: 7)
            case .double(let x):
                if x.isNaN { return }
                addBinaryFloat(x, digits: 15)
            case .decimal128(let x):
                if DecimalArithmetic.isNaN(x) { return }
                addDecimalTerm(x)
            default: return
            }
        }
        count += 1
    }

    /// A float or double, as realm-core makes it a decimal (`DecimalArithmetic.from(_:digits:)`).
    @inline(__always)
    private mutating func addBinaryFloat(_ x: Double, digits: Int) {
        if x == 0 {
            addExactly(false, 0, 0)
        } else if let (negative, coefficient, exponent) = DecimalArithmetic.parts(of: x, digits: digits) {
            addExactly(negative, UInt128(coefficient), exponent)
        } else {
            addDecimalTerm(DecimalArithmetic.from(x, digits: digits))
        }
    }

    private mutating func addDecimalTerm(_ d: Decimal128Bits) {
        let (negative, exponent, coefficient, _) = DecimalOrder.parts(d)
        guard let coefficient, exactActive else {
            // An infinity, or past the exact range: decimal128's own addition.
            leaveExact()
            decimal = DecimalArithmetic.add(decimal, d)
            return
        }
        addExactly(negative, coefficient, exponent)
    }

    /// 10^0 ... 10^36.
    private static let powersOfTen: [Int128] = {
        var p: [Int128] = [1]
        for _ in 0..<36 { p.append(p.last! * 10) }
        return p
    }()

    /// Add ±coefficient × 10^exponent as decimal128 adds it (the result's
    /// exponent the smaller one, a zero taking the other's), exactly while
    /// the sum has at most 34 digits.
    private mutating func addExactly(_ negative: Bool, _ coefficient: UInt128, _ exponent: Int) {
        let limit = Aggregator.powersOfTen[34]
        if exactActive && coefficient < UInt128(limit) {
            let term = negative ? -Int128(coefficient) : Int128(coefficient)
            if exactCoefficient == 0 && term == 0 {
                exactExponent = Swift.min(exactExponent, exponent)
                return
            }
            if exactCoefficient == 0 {
                exactCoefficient = term
                exactExponent = exponent
                return
            }
            if term == 0 && exactExponent <= exponent { return }
            var a = exactCoefficient, b = term
            let shift = Swift.abs(exactExponent - exponent)
            if shift <= 2 + 34 {
                var fits = true
                if exactExponent > exponent {
                    let (p, overflow) = a.multipliedReportingOverflow(by: Aggregator.powersOfTen[shift])
                    fits = !overflow
                    a = p
                } else if exponent > exactExponent {
                    let (p, overflow) = b.multipliedReportingOverflow(by: Aggregator.powersOfTen[shift])
                    fits = !overflow
                    b = p
                }
                if fits, a.magnitude < UInt128(limit) * 100, b.magnitude < UInt128(limit) * 100 {
                    let sum = a + b
                    if sum.magnitude < UInt128(limit) {
                        exactCoefficient = sum
                        exactExponent = Swift.min(exactExponent, exponent)
                        return
                    }
                }
            }
        }
        leaveExact()
        decimal = DecimalArithmetic.add(decimal, DecimalArithmetic.finite(negative: negative, coefficient: coefficient, exponent: exponent))
    }

    /// Hand the exact sum over to `decimal` (once).
    private mutating func leaveExact() {
        guard exactActive else { return }
        decimal = exactSum
        exactActive = false
    }

    private var exactSum: Decimal128Bits {
        DecimalArithmetic.finite(negative: exactCoefficient < 0, coefficient: exactCoefficient.magnitude, exponent: exactExponent)
    }

    /// Fold slots `mask` of a column chunk of mixed values (each coded).
    mutating func addMixed(_ chunk: ColumnChunk, _ mask: Bitmap, nullable: Bool, damaged: () -> FiefError) throws(FiefError) {
        var failed = false
        forEachSlot(mask) { slot in
            guard !failed, case .binary(let coded) = chunk.value(slot, type: .mixed, nullable: nullable) else { return }
            guard let value = MixedCoding.decode(coded) else { failed = true; return }
            addMixed(value)
        }
        if failed { throw damaged() }
    }

    /// Fold slots `mask` of a column chunk of values of `type`.
    mutating func add(_ chunk: ColumnChunk, _ mask: Bitmap, nullable: Bool) {
        let reader = chunk.reader
        if let base = reader.base, chunk.dirtyItems == nil {
            // Straight from the stored layout, without building values.
            switch type {
            case .int:
                let values = base + ClusterLayout.intValues
                let width = reader.intWidth, low = reader.intBase
                forEachSlot(mask) { slot in
                    if nullable && reader.isNull(slot) { return }
                    addInt(FrameOfReference.value(values, width: width, base: low, slot))
                }
                return
            case .double:
                let values = base + ClusterLayout.bitmapBytes
                forEachSlot(mask) { slot in
                    if nullable && reader.isNull(slot) { return }
                    addDouble(values.loadUnaligned(fromByteOffset: slot << 3, as: Double.self))
                }
                return
            default:
                break
            }
        }
        forEachSlot(mask) { slot in add(chunk.value(slot, type: type, nullable: nullable)) }
    }

    /// The result: null when nothing was folded (0 for a sum).
    func result() -> Value {
        if type == .mixed {
            switch operation {
            case .min, .max: return count == 0 ? .null : extreme
            case .sum: return .decimal128(exactActive ? exactSum : decimal)
            case .average: return count == 0 ? .null : .decimal128(DecimalArithmetic.divide(exactActive ? exactSum : decimal, by: count))
            }
        }
        if count == 0 {
            guard operation == .sum else { return .null }
            switch type {
            case .int: return .int(0)
            case .decimal128: return .decimal128(DecimalArithmetic.zero)
            default: return .double(0)
            }
        }
        switch (operation, type) {
        case (.min, .int), (.max, .int), (.sum, .int): return .int(int)
        case (.average, .int): return .double(intOverflowed ? double / Double(count) : Double(int) / Double(count))
        case (.min, .float), (.max, .float): return .float(Float(double))
        case (.min, .double), (.max, .double), (.sum, .float), (.sum, .double): return .double(double)
        case (.average, .float), (.average, .double): return .double(double / Double(count))
        case (.min, .decimal128), (.max, .decimal128), (.sum, .decimal128): return .decimal128(decimal)
        case (.average, .decimal128): return .decimal128(DecimalArithmetic.divide(decimal, by: count))
        case (.min, .timestamp), (.max, .timestamp): return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        default: return .null
        }
    }
}

extension ObjectResults {
    /// The `operation` of property `propertyKey` over these results'
    /// objects (an object listed twice in a list counts twice).  Reads the
    /// column in place, cluster by cluster, without ordering the objects.
    func aggregateObjects(_ operation: AggregateOperation, property propertyKey: UInt32) throws(FiefError) -> Value {
        try realm.checkReadable()
        let table = try realm.table(tableKey)
        let property = try table.property(propertyKey)
        let subject = "'\(table.objectClass.name).\(property.name)'"
        if property.collection != .none {
            throw FiefError(.invalidArgument, "cannot take the \(operation.name) of \(subject): it is a \(property.collection.name), not a single value")
        }
        if property.type == .link {
            throw FiefError(.invalidArgument, "cannot take the \(operation.name) of \(subject): it is a link; aggregate a property of the linked class instead")
        }
        try Aggregator.check(operation, property.type, subject: subject)
        var aggregator = Aggregator(operation, property.type)
        let tableName = table.objectClass.name
        try forEachMatch { (cluster, mask) throws(FiefError) in
            let chunk = try realm.chunk(table, column: propertyKey, cluster: cluster)
            if property.type == .mixed {
                try aggregator.addMixed(chunk, mask, nullable: true) {
                    FiefError(.fileCorrupt, "a mixed value of '\(tableName).\(property.name)' cannot be read: the file is damaged")
                }
            } else {
                aggregator.add(chunk, mask, nullable: property.isNullable)
            }
        }
        return aggregator.result()
    }
}
