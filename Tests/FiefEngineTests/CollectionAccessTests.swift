import XCTest
@testable import FiefEngine

extension Realm {
    /// The size of nested collection `ref`, a list or a dictionary (tests
    /// that made the address from a stored id alone).
    func nestedCount(_ ref: CollectionRef) throws(FiefError) -> Int {
        do throws(FiefError) {
            return try list(ref).count()
        } catch where error.code == .invalidArgument {
            return try map(ref).count()
        }
    }

    /// Empty nested collection `ref`, a list or a dictionary.
    func nestedClear(_ ref: CollectionRef) throws(FiefError) {
        do throws(FiefError) {
            try list(ref).removeAll()
        } catch where error.code == .invalidArgument {
            try map(ref).removeAll()
        }
    }
}
