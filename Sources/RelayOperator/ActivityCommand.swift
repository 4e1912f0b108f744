import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl grants activity`: what each connection did in the last 30 days (issue 44).
enum ActivityCommand {
    static let activity = AdminCommand(
        "grants", "activity", arguments: "[--user ID] [--days]",
        summary: "What each connection did in the last 30 days: counts per action.",
        details: """
            One line per grant: grant ID, user ID (the HMAC from `users id`, nothing more of the
            person), client ID, then how many to-dos it added, completed, snoozed, deleted,
            updated and undid over the last 30 UTC days: the totals the person's connections page
            shows. With --days, one line per grant and UTC day with activity instead. The relay
            keeps only these counts (no title, content or ID of any to-do); they go when the
            connection ends. Without --user this scans the store; with it, it reads the user's index.

            Example:
              mustdo-relayctl grants activity --user "$(mustdo-relayctl users id _0123456789abcdef0123456789abcdef)"
            """
    ) { parser, context in
        let user = try parser.value(for: "--user")
        let perDay = parser.flag("--days")
        try parser.finish()
        try await context.withAdmin { admin in
            let grants = try await admin.activity(userID: user)
            let actions = ConnectionAction.allCases
            let headers =
                ["GRANT", "USER", "CLIENT"] + (perDay ? ["DAY"] : []) + actions.map { $0.rawValue.uppercased() }
            var rows: [[String]] = []
            for grant in grants {
                let start = [grant.grantID, grant.userID, AdminFormat.safe(grant.clientID)]
                if perDay {
                    for day in grant.days {
                        rows.append(start + [AdminFormat.day(day.day)] + actions.map { String(day.counts[$0] ?? 0) })
                    }
                } else {
                    rows.append(start + actions.map { String(grant.total($0)) })
                }
            }
            context.output(
                .array(grants.map(json)),
                text: grants.isEmpty ? "no grants" : AdminFormat.table(headers, rows) + "\n\(grants.count) grant(s)")
        }
        return 0
    }

    static func json(_ grant: GrantActivity) -> JSONValue {
        func counts(_ of: (ConnectionAction) -> Int) -> JSONValue {
            .object(JSONObject(ConnectionAction.allCases.map { ($0.rawValue, JSONValue.int(of($0))) }))
        }
        return [
            "grant": .string(grant.grantID), "userID": .string(grant.userID), "clientID": .string(grant.clientID),
            "totals": counts(grant.total),
            "days": .array(
                grant.days.map { day in
                    ["day": .string(AdminFormat.day(day.day)), "counts": counts { day.counts[$0] ?? 0 }]
                }),
        ]
    }
}
