import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Regression: refusing a file that is not a realm left a "<path>-lock" file
/// beside it (found when `fief info README.md` left README.md-lock behind).
final class ForeignFileTests: XCTestCase {
    func testRefusedFilesLeaveNoLockFileBehind() throws {
        let dir = tempDir()
        let text = dir.file("notes.txt")
        try Array("just some text, not a realm\n".utf8).withUnsafeBytes { bytes in
            let fd = open(text, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            XCTAssertEqual(write(fd, bytes.baseAddress, bytes.count), bytes.count)
            close(fd)
        }
        for readOnly in [true, false] {
            var configuration = RealmConfiguration()
            configuration.path = text
            configuration.readOnly = readOnly
            _ = expectError(.fileNotFief) { try Realm.open(configuration) }
            XCTAssertNotEqual(access(text + "-lock", F_OK), 0, "a lock file was left beside a refused file (readOnly: \(readOnly))")
        }
    }
}
