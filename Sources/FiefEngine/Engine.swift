public func engineHello() -> Int { 42 }
