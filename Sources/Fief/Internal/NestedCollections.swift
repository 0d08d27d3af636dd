// Handles of collections nested in mixed values (fief.h, "Nested
// collections"): the list or dictionary a mixed property, a list element or
// a map value holds.

import CFief
import Foundation

extension FiefMixedSlot {
    /// The nested list this slot holds, as a managed list on its own handle.
    func nestedList() -> ManagedList {
        preconditionFailure("Nested collections in mixed values need a library that stores them")
    }

    /// The nested dictionary this slot holds, as a managed map on its own handle.
    func nestedMap() -> ManagedMap {
        preconditionFailure("Nested collections in mixed values need a library that stores them")
    }
}
