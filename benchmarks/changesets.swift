// The change-set algebra's cost (docs/design.md, "Change sets"): calculate
// on results of N keys in the shapes a notifier meets, and the builder fed
// list operations.  Built by benchmarks/changesets with the engine's
// Sources/FiefEngine/Notify/ChangeSet*.swift (pure Swift, no storage), so it
// measures the algorithm alone.  Prints the median, minimum and maximum of
// the timed rounds per case, in milliseconds.

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A time in milliseconds, right-aligned with three decimals.
func milliseconds(_ value: Double) -> String {
    let thousandths = Int(value * 1000 + 0.5)
    let fraction = String(thousandths % 1000)
    let text = "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    return String(repeating: " ", count: max(0, 9 - text.count)) + text
}

@main
struct ChangeSetBench {
    static func main() {
        var sink = 0
        let arguments = CommandLine.arguments
        let n = arguments.count > 1 ? Int(arguments[1])! : 100_000
        let rounds = arguments.count > 2 ? Int(arguments[2])! : 11
        var random = SplitMix(state: 42)

        let keys = (0..<n).map { Int64($0) * 2 }                      // in key order
        var shuffled = keys
        shuffled.shuffle(using: &random)
        var fewMoves = keys
        for _ in 0..<100 {
            fewMoves.insert(fewMoves.remove(at: Int.random(in: 0..<n, using: &random)), at: Int.random(in: 0..<n, using: &random))
        }
        let appended = keys + (0..<1000).map { Int64(2 * n + $0) }
        // 1 % of rows deleted and 1 % inserted (odd keys), in key order.
        var churned = keys.filter { $0 % 200 != 2 }
        for k in stride(from: Int64(1), to: Int64(2 * n), by: 200) { churned.append(k) }
        churned.sort()

        let none: (Int64) -> Bool = { _ in false }
        let onePercent: (Int64) -> Bool = { $0 % 200 == 0 }

        func measure(_ rounds: Int, _ sink: inout Int, _ name: String, _ body: () -> Int) {
            var times: [Double] = []
            sink &+= body()  // warm-up
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                sink &+= body()
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
            }
            times.sort()
            let label = name + String(repeating: " ", count: max(0, 52 - name.count))
            let columns = [times[times.count / 2], times[0], times[times.count - 1]].map(milliseconds)
            print(label + columns.joined(separator: " "))
        }

        func calc(_ old: [Int64], _ new: [Int64], _ inKeyOrder: Bool, _ modified: (Int64) -> Bool) -> Int {
            let b = ChangeBuilder.calculate(old: old, new: new, inKeyOrder: inKeyOrder, modified: modified)
            return b.deletions.count + b.insertions.count + b.modifications.count
        }

        print("N = \(n), \(rounds) rounds; ms: median min max")
        measure(rounds, &sink, "calculate unchanged, key order") { calc(keys, keys, true, none) }
        measure(rounds, &sink, "calculate unchanged, any order") { calc(shuffled, shuffled, false, none) }
        measure(rounds, &sink, "calculate unchanged, 1 % modified") { calc(shuffled, shuffled, false, onePercent) }
        measure(rounds, &sink, "calculate appends (1,000)") { calc(keys, appended, false, none) }
        measure(rounds, &sink, "calculate 1 % deleted + 1 % inserted, key order") { calc(keys, churned, true, onePercent) }
        measure(rounds, &sink, "calculate 1 % deleted + 1 % inserted, any order") { calc(keys, churned, false, onePercent) }
        measure(rounds, &sink, "calculate 100 moves") { calc(keys, fewMoves, false, onePercent) }
        measure(rounds, &sink, "calculate shuffled") { calc(keys, shuffled, false, none) }
        measure(rounds, &sink, "calculate shuffled, 1 % modified") { calc(keys, shuffled, false, onePercent) }
        measure(rounds, &sink, "builder: N appends + finalize") {
            var b = ChangeBuilder()
            for i in 0..<n { b.insert(at: n + i) }
            return b.finalize().insertions.count
        }
        measure(rounds, &sink, "builder: 10,000 inserts at random + finalize") {
            var r = SplitMix(state: 6)
            var b = ChangeBuilder()
            for i in 0..<10_000 { b.insert(at: Int.random(in: 0...(n + i), using: &r)) }
            return b.finalize().insertions.count
        }
        measure(rounds, &sink, "builder: 10,000 list ops + finalize") {
            var r = SplitMix(state: 7)
            var b = ChangeBuilder()
            var size = n
            for _ in 0..<10_000 {
                switch Int.random(in: 0..<4, using: &r) {
                case 0: b.insert(at: Int.random(in: 0...size, using: &r)); size += 1
                case 1: b.erase(at: Int.random(in: 0..<size, using: &r)); size -= 1
                case 2: b.modify(at: Int.random(in: 0..<size, using: &r))
                default: b.move(from: Int.random(in: 0..<size, using: &r), to: Int.random(in: 0..<size, using: &r))
                }
            }
            let set = b.finalize()
            return set.deletions.count + set.moves.count
        }
        measure(rounds, &sink, "merge of 100 change sets of 100 ops") {
            var r = SplitMix(state: 8)
            var merged = ChangeBuilder()
            var size = n
            for _ in 0..<100 {
                var b = ChangeBuilder()
                for _ in 0..<100 {
                    switch Int.random(in: 0..<3, using: &r) {
                    case 0: b.insert(at: Int.random(in: 0...size, using: &r)); size += 1
                    case 1: b.erase(at: Int.random(in: 0..<size, using: &r)); size -= 1
                    default: b.modify(at: Int.random(in: 0..<size, using: &r))
                    }
                }
                merged.merge(b)
            }
            return merged.finalize().insertions.count
        }
        if sink == 42 { print(sink) }
    }
}
