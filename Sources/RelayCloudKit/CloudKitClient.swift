import RelayHTTP
import RelayJSON

/// A typed client for the part of CloudKit Web Services the relay uses. Every call that takes a
/// web auth token returns (or, on failure, carries in `CloudKitError.rotatedToken`) the token
/// CloudKit rotated to; the caller stores it before its next call for that user and keeps one
/// call per user in flight.
///
/// Reads (users/caller, query, lookup, zones/list, changes/zone) retry throttling and outages a
/// bounded number of times with jitter; writes never retry.
package final class CloudKitClient: Sendable {
    /// The settings it runs with.
    package let configuration: CloudKitConfiguration
    let http: HTTPClient

    /// A client that sends through `http` (share one `HTTPClient` across the process).
    package init(configuration: CloudKitConfiguration, http: HTTPClient) {
        self.configuration = configuration
        self.http = http
    }

    /// The sign-in URL: `users/caller` without a web auth token answers 421 with `redirectURL`.
    /// No user token is sent, so a 401 here is about the API token (`.authenticationFailed`).
    package func signInURL() async throws(CloudKitError) -> String {
        do {
            _ = try await call(.get, "users/caller", database: .public, token: nil, idempotent: true).decode { $0 }
        } catch  where error.status == 421 {
            if let url = error.redirectURL { return url }
            throw CloudKitError(.invalidResponse, status: 421, reason: "421 without redirectURL")
        }
        throw CloudKitError(.invalidResponse, reason: "users/caller without a token did not ask for sign-in")
    }

    /// What CloudKit says of this client's API token, container and environment, asked the way
    /// sign-in starts: `users/caller` without a web auth token must answer 421 AUTHENTICATION_REQUIRED
    /// with a sign-in URL. Any other refusal (401 AUTHENTICATION_FAILED, 403, 400, 404) means
    /// CloudKit does not take the credentials; no answer, 5xx or throttling tells nothing.
    package func checkAPIToken() async -> APITokenCheck {
        do {
            _ = try await signInURL()
            return .accepted
        } catch {
            switch error.kind {
            case .authenticationFailed, .accountUnsupported, .accessDenied, .badRequest, .notFound, .zoneNotFound:
                return .refused
            default:
                return .unknown
            }
        }
    }

    /// The signed-in user (`users/caller` on the public database, as documented).
    package func caller(token: CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<CloudKitUser> {
        let reply = try await call(.get, "users/caller", database: .public, token: token, idempotent: true)
        return try reply.decode(CloudKitUser.init(json:))
    }

    /// One page of a query in the configured zone.
    package func query(
        _ query: RecordQuery, token: CloudKitWebAuthToken
    ) async throws(CloudKitError) -> CloudKitResponse<QueryPage> {
        let body = query.json(zoneName: configuration.zoneName)
        let reply = try await call(.post, "records/query", token: token, body: body, idempotent: true)
        return try reply.decodeRecords { body in
            QueryPage(
                records: body.results.compactMap(\.record),
                failures: body.results.compactMap(\.error),
                continuationMarker: body.continuationMarker
            )
        }
    }

    /// Every page of a query (up to `maxRecords`), each page sent with the token the previous
    /// one rotated to. The response's `rotatedToken` is the newest of them.
    package func queryAll(
        _ query: RecordQuery, token: CloudKitWebAuthToken, maxRecords: Int = 2000
    ) async throws(CloudKitError) -> CloudKitResponse<[Record]> {
        let run = try await queryPages(query, token: token, maxPages: Int.max) { records, _ in
            records.count >= maxRecords
        }
        return CloudKitResponse(value: Array(run.value.records.prefix(maxRecords)), rotatedToken: run.rotatedToken)
    }

    /// The pages of a query, in order, until CloudKit has no more (`QueryRun.complete`), `enough` says the
    /// records so far (and the last page's) suffice (`QueryRun.stopped`), or `maxPages` calls were made (neither:
    /// the caller must say the answer is incomplete). Each page is sent with the token the previous one rotated to.
    package func queryPages(
        _ query: RecordQuery, token: CloudKitWebAuthToken, maxPages: Int,
        enough: ([Record], [Record]) -> Bool = { _, _ in false }
    ) async throws(CloudKitError) -> CloudKitResponse<QueryRun> {
        var query = query
        var current = token
        var rotated: CloudKitWebAuthToken?
        var run = QueryRun()
        while run.pages < maxPages {
            let page: CloudKitResponse<QueryPage>
            do {
                page = try await self.query(query, token: current)
            } catch {
                var error = error
                error.rotatedToken = error.rotatedToken ?? rotated
                throw error
            }
            if let next = page.rotatedToken {
                current = next
                rotated = next
            }
            run.pages += 1
            run.records += page.value.records
            guard let marker = page.value.continuationMarker else {
                run.complete = true
                break
            }
            if enough(run.records, page.value.records) {
                run.stopped = true
                break
            }
            query.continuationMarker = marker
        }
        return CloudKitResponse(value: run, rotatedToken: rotated)
    }

    /// Looks records up by name. Missing records come back as `.failure` items with kind
    /// `.notFound`; match results by `recordName`, not position.
    package func lookup(
        _ recordNames: [String], desiredKeys: [String]? = nil, token: CloudKitWebAuthToken
    ) async throws(CloudKitError) -> CloudKitResponse<[RecordResult]> {
        let body = lookupBody(recordNames, desiredKeys: desiredKeys)
        let reply = try await call(.post, "records/lookup", token: token, body: body, idempotent: true)
        return try reply.decodeRecords(\.results)
    }

    /// The `records/lookup` body: the zone, the record names, and the keys wanted (nil: all).
    private func lookupBody(_ recordNames: [String], desiredKeys: [String]?) -> JSONValue {
        var body: JSONObject = [
            "zoneID": ["zoneName": .string(configuration.zoneName)],
            "records": .array(recordNames.map { ["recordName": .string($0)] }),
        ]
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        return .object(body)
    }

    /// Runs operations in order with `atomic: false`: each item succeeds or fails on its own, so
    /// check every result. Never retried.
    package func modify(
        _ operations: [RecordOperation], desiredKeys: [String]? = nil, token: CloudKitWebAuthToken
    ) async throws(CloudKitError) -> CloudKitResponse<[RecordResult]> {
        var body: JSONObject = [
            "zoneID": ["zoneName": .string(configuration.zoneName)],
            "atomic": false,
            "operations": .array(operations.map(\.json)),
        ]
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        let reply = try await call(.post, "records/modify", token: token, body: .object(body), idempotent: false)
        return try reply.decodeRecords(\.results)
    }

    /// The zones of the database (`zones/list`).
    package func zones(token: CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<[Zone]> {
        let reply = try await call(.get, "zones/list", token: token, idempotent: true)
        return try reply.decode { json throws(CloudKitError) in
            guard let items = json["zones"]?.arrayValue else {
                throw CloudKitError(.invalidResponse, reason: "zones/list has no zones array")
            }
            var zones: [Zone] = []
            for item in items where item["serverErrorCode"] == nil { zones.append(try Zone(json: item)) }
            return zones
        }
    }

    /// Creates the configured zone (`zones/modify`); an existing zone counts as success.
    package func createZone(token: CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Zone> {
        let zoneID: JSONValue = ["zoneName": .string(configuration.zoneName)]
        let body: JSONValue = ["operations": [["operationType": "create", "zone": ["zoneID": zoneID]]]]
        let reply = try await call(.post, "zones/modify", token: token, body: body, idempotent: false)
        return try reply.decode { json throws(CloudKitError) in
            guard let item = json["zones"]?.arrayValue?.first else {
                throw CloudKitError(.invalidResponse, reason: "zones/modify has no zones array")
            }
            if let code = item["serverErrorCode"]?.stringValue, code != "EXISTS" {
                throw CloudKitError(
                    CloudKitError.Kind.forCode(code, wholeRequest: false) ?? .server,
                    serverErrorCode: code, reason: item["reason"]?.stringValue)
            }
            return (try? Zone(json: item)) ?? Zone(zoneName: configuration.zoneName)
        }
    }

    /// One page of the configured zone's change feed after `syncToken` (nil: from the start). `reverse` asks for
    /// the newest changes first (WS FetchingRecordZoneChanges: "whether the changes are returned in reverse
    /// order"); `recordTypes` limits the records to those types (`desiredRecordTypes`).
    package func zoneChanges(
        syncToken: String?, resultsLimit: Int? = nil, reverse: Bool = false, recordTypes: [String]? = nil,
        token: CloudKitWebAuthToken
    ) async throws(CloudKitError) -> CloudKitResponse<ZoneChanges> {
        var zone: JSONObject = ["zoneID": ["zoneName": .string(configuration.zoneName)]]
        if let syncToken { zone["syncToken"] = .string(syncToken) }
        if let resultsLimit { zone["resultsLimit"] = .int(resultsLimit) }
        if reverse { zone["reverse"] = true }
        if let recordTypes { zone["desiredRecordTypes"] = .array(recordTypes.map { .string($0) }) }
        let body: JSONValue = ["zones": [.object(zone)]]
        let reply = try await call(.post, "changes/zone", token: token, body: body, idempotent: true)
        return try reply.decodeZoneChanges()
    }
}

/// The outcome of `CloudKitClient.checkAPIToken()`.
package enum APITokenCheck: String, Sendable, Equatable {
    /// CloudKit takes the API token: it asked for a sign-in (421 with a redirect URL).
    case accepted
    /// CloudKit refuses the API token, the container or the environment: the operator must fix it.
    case refused
    /// No verdict: CloudKit did not answer, was unavailable or throttled, or answered oddly.
    case unknown
}
