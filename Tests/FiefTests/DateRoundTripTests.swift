import Fief
import Foundation
import XCTest

/// A Date stored and read back is `==` to the original, as in RealmSwift: the conversion
/// splits the interval since 2001 into whole seconds and nanoseconds and moves the seconds to
/// 1970 in integers.
final class DateRoundTripTests: FiefTestCase {
    /// Every Double between `from` and `to` (one ulp apart), stored as a date and read back.
    private func assertEveryDateRoundTrips(from: TimeInterval, to: TimeInterval, file: StaticString = #filePath, line: UInt = #line) throws {
        let realm = try Realm()
        var checked = 0
        try realm.write {
            let holder = realm.create(AllTypes.self)
            var interval = from
            while interval < to {
                let date = Date(timeIntervalSinceReferenceDate: interval)
                holder.date = date
                if holder.date != date {
                    XCTFail("\(interval) read back as \(holder.date.timeIntervalSinceReferenceDate)", file: file, line: line)
                    return
                }
                interval = interval.nextUp
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100, file: file, line: line)
    }

    func testEveryDateAroundNowRoundTrips() throws {
        let now = Date().timeIntervalSinceReferenceDate
        try assertEveryDateRoundTrips(from: now - 0.001, to: now + 0.001)
    }

    func testEveryDateAroundTheDistantFutureAndPastRoundTrips() throws {
        let future = Date.distantFuture.timeIntervalSinceReferenceDate
        try assertEveryDateRoundTrips(from: future - 0.001, to: future + 0.001)
        let past = Date.distantPast.timeIntervalSinceReferenceDate
        try assertEveryDateRoundTrips(from: past - 0.001, to: past + 0.001)
    }

    func testEveryDateAround1970RoundTrips() throws {
        let epoch = Date(timeIntervalSince1970: 0).timeIntervalSinceReferenceDate
        try assertEveryDateRoundTrips(from: epoch - 0.001, to: epoch + 0.001)
    }

    /// Thousands of random dates (now-like values, and any magnitude from a year to 8,700 years
    /// from 2001, either side), in properties, optionals, lists, maps and mixed values. (Within
    /// about a year of 2001 a Double resolves finer than the nanoseconds stored, so there, as in
    /// RealmSwift, the fraction below a nanosecond is dropped: see the truncation test.)
    func testRandomDatesRoundTripInEveryKindOfProperty() throws {
        var generator = SplitMix64(seed: 0x5EED_DA7E)
        var dates: [Date] = []
        for _ in 0..<2_000 { dates.append(Date()) }
        for _ in 0..<3_000 {
            // A random Double with an exponent from 2^25 s (1.06 years) to 2^38 s (8,700 years).
            let exponent = Int(generator.next() % 14) + 25
            let fraction = Double(generator.next() >> 11) / Double(1 << 53)
            let magnitude = (1 + fraction) * pow(2, Double(exponent))
            dates.append(Date(timeIntervalSinceReferenceDate: generator.next() & 1 == 0 ? magnitude : -magnitude))
        }
        let realm = try Realm()
        let list = DateCollections()
        list.dates.append(objectsIn: dates)
        for (index, date) in dates.prefix(500).enumerated() {
            list.byName["\(index)"] = date
            list.mixed.append(.date(date))
        }
        try realm.write { realm.add(list) }

        let stored = realm.objects(DateCollections.self).first!
        XCTAssertEqual(stored.dates.count, dates.count)
        var mismatches = 0
        for (index, date) in dates.enumerated() where stored.dates[index] != date { mismatches += 1 }
        XCTAssertEqual(mismatches, 0, "dates in a List<Date> that changed on the way through")
        for (index, date) in dates.prefix(500).enumerated() {
            XCTAssertEqual(stored.byName["\(index)"], date)
            XCTAssertEqual(stored.mixed[index], .date(date))
        }

        try realm.write {
            let holder = realm.create(AllTypes.self)
            for date in dates.prefix(1_000) {
                holder.date = date
                holder.optDate = date
                XCTAssertEqual(holder.date, date)
                XCTAssertEqual(holder.optDate, date)
            }
        }
    }

    /// A date found by the very Date it was stored with (query arguments convert the same way).
    func testStoredDatesAreFoundByEquality() throws {
        let realm = try Realm()
        var generator = SplitMix64(seed: 42)
        let dates = (0..<50).map { _ in Date(timeIntervalSinceNow: Double(generator.next() % 1_000_000_000) / 1_000) }
        try realm.write {
            for date in dates { realm.create(AllTypes.self).date = date }
        }
        for date in dates {
            XCTAssertEqual(realm.objects(AllTypes.self).filter("date == %@", date).count, 1)
            XCTAssertEqual(realm.objects(AllTypes.self).where { $0.date == date }.count, 1)
        }
    }

    /// Negative fractions: before 1970 and before 2001, on either side of a whole second.
    func testNegativeFractionsRoundTrip() throws {
        let realm = try Realm()
        let intervalsSince1970: [TimeInterval] = [-0.5, -1.25, -0.000_001, -1_000_000.75, 0.25, 978_307_199.5, 978_307_200.5]
        let intervalsSince2001: [TimeInterval] = [-0.5, -1.25, -0.25, -978_307_200.5, -978_307_199.75, -86_400.001]
        let dates = intervalsSince1970.map(Date.init(timeIntervalSince1970:)) + intervalsSince2001.map(Date.init(timeIntervalSinceReferenceDate:))
        try realm.write {
            let holder = realm.create(AllTypes.self)
            for date in dates {
                holder.date = date
                XCTAssertEqual(holder.date, date, "\(date.timeIntervalSinceReferenceDate)")
            }
        }
    }

    /// Below a nanosecond the fraction truncates toward zero, as RealmSwift's does.
    func testFractionsBelowANanosecondTruncateTowardZero() throws {
        let realm = try Realm()
        let zero = Date(timeIntervalSinceReferenceDate: 0)
        try realm.write {
            let holder = realm.create(AllTypes.self)
            holder.date = zero
            XCTAssertEqual(holder.date, zero)
            holder.date = Date(timeIntervalSinceReferenceDate: (1e-9).nextDown)
            XCTAssertEqual(holder.date, zero)
            holder.date = Date(timeIntervalSinceReferenceDate: 1e-9)
            XCTAssertNotEqual(holder.date, zero)
            holder.date = Date(timeIntervalSinceReferenceDate: (0.0).nextDown)
            XCTAssertEqual(holder.date, zero)
            holder.date = Date(timeIntervalSinceReferenceDate: (-1e-9).nextUp)
            XCTAssertEqual(holder.date, zero)
            holder.date = Date(timeIntervalSinceReferenceDate: -1e-9)
            XCTAssertNotEqual(holder.date, zero)
        }
    }

    /// NaN stores as 1970; dates beyond the timestamp's range store as its ends.
    func testDatesOutsideTheTimestampRangeClamp() throws {
        let realm = try Realm()
        let maxDate = Date(timeIntervalSince1970: Double(UInt64(1) << 63) + 0.999_999_999)
        let minDate = Date(timeIntervalSince1970: -Double(UInt64(1) << 63) - 0.999_999_999)
        try realm.write {
            let holder = realm.create(AllTypes.self)
            holder.date = Date(timeIntervalSinceReferenceDate: .nan)
            XCTAssertEqual(holder.date, Date(timeIntervalSince1970: 0))
            for date in [maxDate, Date(timeIntervalSince1970: maxDate.timeIntervalSince1970.nextUp),
                         Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude), Date(timeIntervalSinceReferenceDate: .infinity)] {
                holder.date = date
                XCTAssertEqual(holder.date, maxDate)
            }
            for date in [minDate, Date(timeIntervalSince1970: minDate.timeIntervalSince1970.nextDown),
                         Date(timeIntervalSinceReferenceDate: -.greatestFiniteMagnitude), Date(timeIntervalSinceReferenceDate: -.infinity)] {
                holder.date = date
                XCTAssertEqual(holder.date, minDate)
            }
            let justInside = Date(timeIntervalSince1970: maxDate.timeIntervalSince1970.nextDown)
            holder.date = justInside
            XCTAssertEqual(holder.date, justInside)
        }
    }

    /// ObjectId's timestamp is the whole seconds since 1970 of the date it was made with.
    func testObjectIdTimestampIsWholeSecondsSince1970() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.999_999)
        let id = ObjectId(timestamp: date, machineId: 1, processId: 2)
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 1_700_000_000))
        let now = Date()
        let generated = ObjectId.generate()
        XCTAssertLessThanOrEqual(abs(generated.timestamp.timeIntervalSince(now)), 2)
    }
}

/// Dates in a list, a map and a list of mixed values.
class DateCollections: Object {
    @Persisted var dates: List<Date>
    @Persisted var byName: Map<String, Date>
    @Persisted var mixed: List<AnyRealmValue>
}

/// A small deterministic generator, so a failure repeats.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
