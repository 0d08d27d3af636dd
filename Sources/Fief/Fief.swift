// Fief: the RealmSwift-compatible Swift overlay over Fief's C ABI (fief.h).
//
// This module imports only the C header's module (CFief); the engine behind
// it is reached solely through the C functions, exactly as from C or Python.
// Code written for RealmSwift (local-only, v20) compiles after replacing
// `import RealmSwift` with `import Fief`, for the parts implemented so far:
// Object/@Persisted with scalar properties, Realm, Realm.Configuration,
// Results, ObjectId and Decimal128.

import CFief

/// The C library's version number (fief_version_number), e.g. 100 for 0.1.0.
public func overlayHello() -> Int32 { fief_version_number() }

/// The version of the C library (fief_version_string) this overlay runs on.
public var fiefLibraryVersion: String { String(cString: fief_version_string()) }
