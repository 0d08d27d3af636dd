import CFief
import FiefEngine

@_cdecl("fief_version_number")
public func exportVersionNumber() -> Int32 { Int32(FIEF_VERSION_NUMBER) }
