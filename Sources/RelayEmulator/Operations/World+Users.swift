import RelayJSON

extension World {
    /// `users/caller`, in the configured shape.
    func usersCaller(_ userKey: String) -> JSONValue {
        let identity: JSONValue = [
            "userRecordName": .string(userKey), "lookupInfo": [:], "nameComponents": [:],
        ]
        return settings.callerShape == "bare" ? identity : ["users": [identity]]
    }
}
