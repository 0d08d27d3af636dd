import CFief
public func overlayHello() -> Int32 { fief_version_number() }
