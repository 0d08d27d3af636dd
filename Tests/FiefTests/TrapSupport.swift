import Fief
import Foundation
import XCTest

/// Programmer errors trap in Fief where they trap in RealmSwift.  A trap
/// ends the process, so each scenario runs in a child process: this test
/// runner again, filtered to `TrapScenarioRunner.testRunScenario`, with the
/// scenario's name in the environment.
enum TrapScenarios {
    /// Scenario name → code that must trap.  Each gets a fresh
    /// `FiefTestCase` (in-memory default realm, its own directory).
    nonisolated(unsafe) static var all: [String: (FiefTestCase) throws -> Void] = [:]

    static let environmentKey = "FIEF_TRAP_SCENARIO"
}

/// Runs the scenario named in the environment (in the child process); does
/// nothing in a normal test run.
final class TrapScenarioRunner: FiefTestCase {
    func testRunScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[TrapScenarios.environmentKey] else { return }
        TrapScenarioRegistry.registerAll()
        guard let scenario = TrapScenarios.all[name] else {
            XCTFail("No trap scenario named '\(name)'")
            return
        }
        try scenario(self)
        // Reaching here means the scenario did not trap.
        FileHandle.standardError.write(Data("FIEF-SCENARIO-RETURNED\n".utf8))
        exit(0)
    }
}

extension XCTestCase {
    /// Asserts that scenario `name` traps with a message containing `message`.
    func assertTraps(_ name: String, message: String, file: StaticString = #filePath, line: UInt = #line) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["FiefTests.TrapScenarioRunner/testRunScenario"]
        var environment = ProcessInfo.processInfo.environment
        environment[TrapScenarios.environmentKey] = name
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            XCTFail("Cannot run \(CommandLine.arguments[0]): \(error)", file: file, line: line)
            return
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "scenario '\(name)' did not trap:\n\(output)", file: file, line: line)
        XCTAssertTrue(output.contains(message), "scenario '\(name)' trapped without '\(message)':\n\(output)", file: file, line: line)
    }
}

/// Every test class's trap scenarios.
enum TrapScenarioRegistry {
    static func registerAll() {
        for table in [CustomPersistableTests.trapScenarios, KeyValueCodingTests.trapScenarios, DynamicAPITests.trapScenarios, ListTests.trapScenarios,
                      SetMapTests.trapScenarios, AnyRealmValueTests.trapScenarios,
                      NestedMixedCollectionTests.trapScenarios, CollectionSetValueTests.trapScenarios, SortDistinctTests.trapScenarios,
                      ProjectionTests.trapScenarios, SectionedResultsTests.trapScenarios, FreezeTests.trapScenarios,
                      FullTextSearchTests.trapScenarios, PredicateFormatTests.trapScenarios, ErrorParityTests.trapScenarios, UnmanagedIndexMatchingTests.trapScenarios,
                      ObjectCopyingTests.trapScenarios, EmbeddedCopyingTests.trapScenarios, NotificationTests.trapScenarios,
                      ResultsNotificationTests.trapScenarios,
                      CollectionNotificationTests.trapScenarios,
                      ObjectNotificationTests.trapScenarios] {
            for (name, scenario) in table {
                precondition(TrapScenarios.all[name] == nil, "two trap scenarios are named '\(name)'")
                TrapScenarios.all[name] = scenario
            }
        }
        // Scenarios that need no test case (key paths and typed queries).
        for (name, scenario) in KeyPathTests.trapScenarios.merging(TypedQueryTests.trapScenarios, uniquingKeysWith: { first, _ in first }) {
            precondition(TrapScenarios.all[name] == nil, "two trap scenarios are named '\(name)'")
            TrapScenarios.all[name] = { _ in scenario() }
        }
    }
}
