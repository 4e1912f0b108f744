import Foundation
import RelayCloudKit
import RelayJSON
import RelayService
import RelayTodo

/// `mustdo-relayctl cloudkit check`: the operator's preflight against the real container, before people
/// arrive. Without a web auth token it proves the API token, container and environment (`users/caller` must
/// answer 421 with a sign-in URL); with a test account's token it proves the zone, the indexes the relay's
/// queries need (`TodoQueries`, sent exactly as the tools send them) and the fields the relay writes (a scratch
/// record of each type written with the relay's codecs, then deleted). Each check ends `ok`, `fail` (with what
/// to fix) or `skip`; nothing it prints is a token or a to-do.
struct CloudKitCheck {
    /// One check's outcome.
    struct Outcome {
        enum Status: String {
            case ok
            case fail
            case skip
        }

        var name: String
        var status: Status
        var detail: String
        var fix: String?
        var extra: JSONObject = [:]

        var json: JSONValue {
            var object: JSONObject = [
                "name": .string(name), "status": .string(status.rawValue), "detail": .string(detail),
            ]
            if let fix { object["fix"] = .string(fix) }
            for (key, value) in extra { object[key] = value }
            return .object(object)
        }
    }

    let client: CloudKitClient
    let settings: CloudKitSettings
    /// `RELAY_ISSUER` + the callback path: where the API token's Sign in Callback must send people.
    let callbackURL: String
    let schema = RecordSchema()
    /// A web auth token (the newest after each call), when one was given.
    var token: CloudKitWebAuthToken?
    var outcomes: [Outcome] = []

    /// Where to fix a schema problem: the file and how it reaches the container.
    static let schemaFix =
        "deploy deploy/cloudkit/schema.ckdb: `cktool import-schema` into the development environment, then "
        + "\"Deploy Schema Changes\" to production in CloudKit Console (docs/operations.md, \"CloudKit\")"

    /// Runs every check that the given inputs allow.
    mutating func run(createZone: Bool, callbackSeen: String?) async {
        await checkSignIn()
        guard outcomes.allSatisfy({ $0.status == .ok }) else { return skipRest("the sign-in check failed") }
        if let callbackSeen { checkCallback(seen: callbackSeen) }
        guard token != nil else {
            return skipRest(
                "no web auth token: run again with --web-auth-token-file F holding a test account's token "
                    + "(see --help)")
        }
        guard await checkToken() else { return skipRest("the web auth token was not accepted") }
        guard await checkZone(create: createZone) else { return skipRest("the zone is missing") }
        let scratch = ScratchRecords(schema: schema)
        await checkQuery(
            "query Todo", TodoQueries.allTodos(schema),
            needs: "recordName QUERYABLE on Todo, deletedAt SORTABLE on Todo")
        await checkQuery(
            "query Todo status", TodoQueries.todos(statuses: ["done", "skipped"], schema),
            needs: "status QUERYABLE on Todo, deletedAt SORTABLE on Todo")
        await checkQuery(
            "query Occurrence",
            TodoQueries.occurrences(of: [scratch.todoID], from: LocalDate(year: 2026, month: 1, day: 1), schema),
            needs: "todoId QUERYABLE on Occurrence, date SORTABLE on Occurrence")
        await checkFields("fields Todo", scratch.todo)
        await checkFields("fields Occurrence", scratch.occurrence)
    }

    /// Every check still to come, marked skipped with `reason`.
    private mutating func skipRest(_ reason: String) {
        for name in [
            "web auth token", "zone", "query Todo", "query Todo status", "query Occurrence", "fields Todo",
            "fields Occurrence",
        ]
        where !outcomes.contains(where: { $0.name == name }) {
            outcomes.append(Outcome(name: name, status: .skip, detail: reason))
        }
    }

    // MARK: Without a token

    private mutating func checkSignIn() async {
        // With no container the request URL has an empty segment: CloudKit (or the emulator) then
        // answers nothing useful and the check would blame the network.
        guard !settings.container.isEmpty else {
            outcomes.append(
                Outcome(
                    name: "sign-in", status: .fail, detail: "RELAY_CLOUDKIT_CONTAINER is not set",
                    fix: "set RELAY_CLOUDKIT_CONTAINER to the app's container, e.g. iCloud.jp.lightning.mustdo"))
            return
        }
        let place = "container \(settings.container) (\(settings.environment)) at \(settings.baseURL)"
        do {
            let url = try await client.signInURL()
            outcomes.append(
                Outcome(
                    name: "sign-in", status: .ok,
                    detail: "CloudKit accepted the API token for \(place): users/caller without a web auth token "
                        + "answered 421 with a sign-in page. Apple sends people back to the API token's Sign in "
                        + "Callback, which must be exactly \(callbackURL); open the sign-in page to see where it "
                        + "lands: \(url)",
                    extra: ["signInURL": .string(url), "callbackURL": .string(callbackURL)]))
        } catch {
            let answer = Self.answer(error)
            let fix: String
            switch (error.status, error.kind) {
            case (401?, _):
                fix =
                    "CloudKit refused the API token: RELAY_CLOUDKIT_API_TOKEN_FILE must hold an API token of "
                    + "\(settings.container) for the \(settings.environment) environment (CloudKit Console → API "
                    + "Access → API Tokens), and RELAY_CLOUDKIT_CONTAINER and RELAY_CLOUDKIT_ENVIRONMENT must name "
                    + "that container and environment"
            case (nil, .unavailable), (nil, .cancelled):
                fix = "cannot reach CloudKit: check RELAY_CLOUDKIT_BASE_URL, DNS, the network and the firewall"
            case (let status?, _) where status != 421:
                fix =
                    "CloudKit does not know this container or environment: check RELAY_CLOUDKIT_CONTAINER (it "
                    + "starts with iCloud.) and RELAY_CLOUDKIT_ENVIRONMENT, and that the API token belongs to them"
            default:
                fix =
                    "users/caller without a web auth token must answer 421 with a redirectURL; check "
                    + "RELAY_CLOUDKIT_BASE_URL points at CloudKit Web Services"
            }
            outcomes.append(
                Outcome(name: "sign-in", status: .fail, detail: "\(place) answered \(answer)", fix: fix))
        }
    }

    /// The address Apple sent the browser to after signing in (the token file held it), against the relay's.
    private mutating func checkCallback(seen: String) {
        if seen == callbackURL {
            outcomes.append(
                Outcome(name: "callback", status: .ok, detail: "Apple sent the browser back to \(callbackURL)"))
        } else {
            outcomes.append(
                Outcome(
                    name: "callback", status: .fail,
                    detail: "Apple sent the browser back to \(seen), but the relay's callback is \(callbackURL)",
                    fix: "set the API token's Sign in Callback in CloudKit Console (API Access → API Tokens) to "
                        + "\(callbackURL), or RELAY_ISSUER to the host it names"))
        }
    }

    // MARK: With a token

    private mutating func checkToken() async -> Bool {
        let result = await call { client, token throws(CloudKitError) in try await client.caller(token: token) }
        switch result {
        case .success:
            outcomes.append(
                Outcome(name: "web auth token", status: .ok, detail: "the token signs in a CloudKit user"))
            return true
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: "web auth token", status: .fail, detail: "users/caller answered \(Self.answer(error))",
                    fix: "sign in again on the sign-in page and run the check within 30 minutes: the token has "
                        + "expired, or it belongs to another container or environment"))
            return false
        }
    }

    private mutating func checkZone(create: Bool) async -> Bool {
        let zone = settings.zone
        let listed = await call { client, token throws(CloudKitError) in try await client.zones(token: token) }
        let names: [String]
        switch listed {
        case .success(let zones): names = zones.map { (zone: Zone) in zone.zoneName }.sorted()
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: "zone", status: .fail, detail: "zones/list answered \(Self.answer(error))",
                    fix: "check that the account can use iCloud data on the web"))
            return false
        }
        if names.contains(zone) {
            outcomes.append(Outcome(name: "zone", status: .ok, detail: "the zone \(zone) exists"))
            return true
        }
        guard create else {
            outcomes.append(
                Outcome(
                    name: "zone", status: .fail,
                    detail: "the zone \(zone) does not exist in this account (its zones: "
                        + "\(names.joined(separator: ", ")))",
                    fix: "if the MustDo app has synced on this account, RELAY_CLOUDKIT_ZONE does not name the app's "
                        + "zone; if the app never ran on it, open the app once, or run again with --create-zone "
                        + "(the relay creates the zone too, on a person's first add_todo)"))
            return false
        }
        switch await call({ client, token throws(CloudKitError) in try await client.createZone(token: token) }) {
        case .success:
            outcomes.append(
                Outcome(name: "zone", status: .ok, detail: "the zone \(zone) was missing and is created now"))
            return true
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: "zone", status: .fail, detail: "creating \(zone) answered \(Self.answer(error))",
                    fix: "create the zone by opening the MustDo app on this account"))
            return false
        }
    }

    private mutating func checkQuery(_ name: String, _ query: RecordQuery, needs: String) async {
        var query = query
        query.resultsLimit = 1  // The filters and sorts are the relay's; one record is enough to prove them.
        switch await call({ client, token throws(CloudKitError) in try await client.query(query, token: token) }) {
        case .success:
            outcomes.append(Outcome(name: name, status: .ok, detail: "CloudKit served the relay's query (\(needs))"))
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: name, status: .fail, detail: "the relay's query was refused: \(Self.answer(error))",
                    fix: "the relay needs \(needs): " + Self.schemaFix))
        }
    }

    private mutating func checkFields(_ name: String, _ record: Record) async {
        let saved = await call { client, token throws(CloudKitError) in
            try await client.modify([RecordOperation(.create, record)], token: token)
        }
        let fields = record.fields.keys.sorted().joined(separator: ", ")
        switch saved.flatMap(Self.firstResult) {
        case .success:
            break
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: name, status: .fail,
                    detail: "a \(record.recordType) with every field the relay writes (\(fields)) was refused: "
                        + Self.answer(error),
                    fix: Self.schemaFix))
            return
        }
        let deleted = await call { client, token throws(CloudKitError) in
            try await client.modify(
                [RecordOperation(.forceDelete, Record(recordName: record.recordName, recordType: record.recordType))],
                token: token)
        }
        switch deleted.flatMap(Self.firstResult) {
        case .success:
            outcomes.append(
                Outcome(
                    name: name, status: .ok,
                    detail: "a scratch \(record.recordType) with every field the relay writes (\(fields)) was "
                        + "created and deleted"))
        case .failure(let error):
            outcomes.append(
                Outcome(
                    name: name, status: .fail,
                    detail: "the scratch record \(record.recordName) was created but deleting it answered "
                        + Self.answer(error),
                    fix: "delete the \(record.recordType) record \(record.recordName) in CloudKit Console"))
        }
    }

    // MARK: Calls

    /// One call with the newest token; the token it rotated to is kept even when it failed.
    private mutating func call<T: Sendable>(
        _ body: (CloudKitClient, CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<T>
    ) async -> Result<T, CloudKitError> {
        guard let current = token else { return .failure(CloudKitError(.sessionDead)) }
        do {
            let response = try await body(client, current)
            token = response.rotatedToken ?? current
            return .success(response.value)
        } catch {
            token = error.rotatedToken ?? current
            return .failure(error)
        }
    }

    /// The one item of a one-operation modify: its error, if it carries one.
    private static func firstResult(_ results: [RecordResult]) -> Result<Void, CloudKitError> {
        switch results.first {
        case .record?, .deleted?: .success(())
        case .failure(let error)?: .failure(error)
        case nil: .failure(CloudKitError(.invalidResponse, reason: "records/modify answered no record"))
        }
    }

    /// What CloudKit answered, for the operator: status, code and Apple's reason (about our own scratch values).
    static func answer(_ error: CloudKitError) -> String {
        var parts: [String] = []
        if let status = error.status { parts.append("HTTP \(status)") }
        if let code = error.serverErrorCode { parts.append(code) }
        if parts.isEmpty { parts.append(error.kind.rawValue) }
        return parts.joined(separator: " ") + (error.reason.map { " (\($0))" } ?? "")
    }
}
