/// How hard a commit works to survive a power loss.  Raw values are the C
/// ABI's `FIEF_DURABILITY_*`.
public enum Durability: Int32, Sendable {
    /// Sync the data, then the new root: every returned commit survives.
    case full = 0
    /// Sync the data only: a power loss may undo the last commit, never damage the file.
    case normal = 1
}
