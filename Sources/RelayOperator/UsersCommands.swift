import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl users id|disconnect`.
enum UsersCommands {
    static let group = AdminGroup(
        name: "users", summary: "Find a user's ID for a support request; disconnect a user.",
        commands: [id, disconnect])

    static let id = AdminCommand(
        "users", "id", arguments: "USER_RECORD_NAME",
        summary: "Print the user ID the relay computes for a CloudKit user record name.",
        details: """
            The relay never stores CloudKit user record names, only HMAC(user-ID key, record name).
            A person asking for support (or to be forgotten) can read their record name in the app
            (CloudKit's `_` followed by 32 hex digits); this prints the matching user ID for
            `grants list --user` and `users disconnect`. Reads only RELAY_USER_ID_KEY_FILE; the
            record name is not echoed.

            Example:
              mustdo-relayctl users id _0123456789abcdef0123456789abcdef
            """
    ) { parser, context in
        let recordName = try parser.positional("user record name")
        guard (1...256).contains(recordName.utf8.count),
            recordName.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { throw ArgumentParser.Failure("a user record name is one word, like _0123456789abcdef0123456789abcdef") }
        // An e-mail address (what a person knows of their account) hashes to an ID nobody has.
        guard !recordName.contains("@") else {
            throw ArgumentParser.Failure(
                "that is an e-mail address; the relay never sees those. Ask the person for their CloudKit user record name (`_` and 32 hex digits, shown in the MustDo app), like _0123456789abcdef0123456789abcdef"
            )
        }
        let configuration = try context.loadConfiguration()
        let key = try Backends.readUserIDKey(configuration)
        let userID = OAuthAdmin.userID(recordName: recordName, userIDKey: key)
        context.output(["userID": .string(userID)], text: userID)
        return 0
    }

    static let disconnect = AdminCommand(
        "users", "disconnect", arguments: "USER_ID",
        summary: "Revoke every grant of a user, as the disconnect page does.",
        details: """
            Revokes every grant of the user (the user ID from `users id`) with all their tokens and
            sealed CloudKit tokens, then scans the store for any grant of that user the index
            missed. Afterwards the relay holds nothing of that user. Their to-dos stay in their own
            iCloud; every AI client they connected must connect again.

            Example:
              mustdo-relayctl users disconnect "$(mustdo-relayctl users id _0123456789abcdef0123456789abcdef)" --yes
            """, destructive: true
    ) { parser, context in
        let userID = try parser.positional("user ID")
        try await context.withAdmin { admin in
            let grants = try await admin.grants(userID: userID)
            try context.confirm(
                "Revoke every grant of user \(userID) (\(grants.count) in the user's index)? Each client must connect again."
            )
            let revoked = try await admin.disconnect(userID: userID)
            context.output(
                ["userID": .string(userID), "grantsRevoked": .int(revoked)],
                text: "revoked \(revoked) grant(s) of user \(userID)")
        }
        return 0
    }
}
