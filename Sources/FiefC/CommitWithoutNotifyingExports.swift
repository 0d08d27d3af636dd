import CFief
import FiefEngine
import FiefStorage

// Write without notifying (fief.h, "Commit without notifying"): the commit
// leaves out the tokens' next change sets (Realm.commitWrite(withoutNotifying:)).

@_cdecl("fief_realm_commit_without_notifying")
public func exportRealmCommitWithoutNotifying(_ handle: OpaquePointer?, _ tokens: UnsafePointer<OpaquePointer?>?,
                                              _ numTokens: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        if numTokens < 0 { throw FiefError(.invalidArgument, "num_tokens is negative") }
        var notifiers: [Notifier] = []
        if numTokens > 0 {
            let list = try require(tokens, "tokens")
            let realm = try HandleTable.resolve(UnsafeRawPointer(handle), .realm, as: RealmBox.self).realm
            for i in 0..<numTokens {
                let box = try HandleTable.resolve(UnsafeRawPointer(list[i]), .notificationToken, as: NotificationTokenBox.self)
                guard box.realm === realm else {
                    throw FiefError(.invalidArgument, "token \(i) was registered through another realm: only notifications of the realm being written can be skipped")
                }
                notifiers.append(box.notifier)
            }
        }
        try withRealm(handle) { (realm) throws(FiefError) in try realm.commitWrite(withoutNotifying: notifiers) }
        notifyAfterChange(handle)
        return true
    }
}
