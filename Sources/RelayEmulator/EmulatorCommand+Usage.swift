extension EmulatorCommand {
    /// The `--help` text: flags and the control API.
    package static let usage = """
        cloudkit-emulator: a local CloudKit Web Services emulator with a fake Apple sign-in page.

        USAGE
          cloudkit-emulator [--port N] [--api-token T] [--callback URL] [options]

        OPTIONS
          --host ADDR                 listen address (default 127.0.0.1)
          --port N                    TCP port, 0 for any free one (default 8787)
          --threads N                 event loop threads (default 2)
          --api-token T               the ckAPIToken every call must carry (default emulator-api-token)
          --api-token-file FILE       read the API token from FILE instead
          --container ID              accept only this container (default: any)
          --callback URL              where sign-in sends the browser with ?ckWebAuthToken=T&ckSession=T
                                      (default: show the token on a page)
          --public-url URL            the emulator's origin as browsers reach it (default http://HOST:PORT)
          --zone NAME                 zone created at a user's first sign-in (default MustDo)
          --state FILE                keep users, records and sessions in FILE across restarts
          --schema FILE               the container's schema, in the CloudKit Schema Language that
                                      `cktool export-schema` writes (default: the relay's own,
                                      deploy/cloudkit/schema.ckdb). The production environment refuses
                                      record types and fields it lacks; development creates them on
                                      save; both refuse queries its indexes cannot serve
          --lenient-schema            check nothing against the schema (tests that need it say why)
          --no-zone                   a first sign-in creates no custom zone (an account whose app
                                      never synced)
          --schema-errors perRecord|wholeRequest
                                      a write the schema refuses fails as one item's BAD_REQUEST
                                      (default) or as the whole request's
          --rotation invalidate|keep  after rotation the old token dies (documented, default) or stays valid (live)
          --token-lifetime SECONDS    session lifetime (default 1800; 0 = never expires)
          --keep-signed-in-lifetime SECONDS
                                      lifetime with "Keep me signed in" (default 1209600; 0 = never)
          --dead-token-status 421|401 answer for an expired or unknown token (default 421 AUTHENTICATION_REQUIRED)
          --caller-shape users|bare   users/caller answers {"users":[…]} (default) or a bare identity
          --callback-encoding percent|raw
                                      tokens in the callback URL percent-encoded (default) or raw with + / =
          --create-exists-code EXISTS|CONFLICT
                                      item error for create on an existing record (default EXISTS)
          --rotate-on-errors          error responses to authenticated calls rotate the token too
          -h, --help                  this text

        CLOUDKIT API  (base URL http://HOST:PORT, as https://api.apple-cloudkit.com)
          GET  /database/1/{container}/{env}/public/users/caller
          GET  /database/1/{container}/{env}/private/zones/list
          POST /database/1/{container}/{env}/private/zones/lookup | zones/modify
          POST /database/1/{container}/{env}/private/records/query | records/lookup | records/modify
          POST /database/1/{container}/{env}/private/changes/zone
          Every call needs ?ckAPIToken=…; user calls need &ckWebAuthToken=… (percent-encoded). Without a
          live token: 421 AUTHENTICATION_REQUIRED with redirectURL to the sign-in page below. Every
          authorised response carries X-Apple-CloudKit-Web-Auth-Token: the next token.
          Limits: 200 operations (or records looked up) per request, resultsLimit 1-200; record names
          ASCII, at most 255 characters, not starting with _. GET /control/schema shows the schemas.

        SIGN-IN PAGE
          GET  /IDMSWebAuth/auth?oauth_token=…   the form (any Apple ID, no password check)
          POST /IDMSWebAuth/signin               appleID, oauth_token, keepSignedIn → 302 to the callback
          Users marked Advanced Data Protection get "Authentication Error" (status 13) instead.

        CONTROL API  (loopback clients only; JSON in, JSON out)
          GET  /control/stats                  requests, per-operation counts, sign-ins, faults,
                                               openConnections, peakOpenConnections
          POST /control/reset                  forget users, records, sessions, faults, counters
          GET  /control/settings               current settings
          GET  /control/schema?environment=production|development
                                               the schema in effect, as cktool export-schema writes it
          POST /control/settings               change some: {"rotation":"keep","tokenLifetimeSeconds":60,
                                               "rotationRenewsLifetime":true,"rotateOnErrors":false,
                                               "deadTokenStatus":421,"callerShape":"bare",
                                               "createExistsCode":"CONFLICT","atomicFailure":"perRecord|wholeRequest",
                                               "schemaErrors":"perRecord|wholeRequest",
                                               "nullValues":"reject|clear" ({"value":null} in a write),
                                               "changesPageSize":200,"callbackEncoding":"raw",
                                               "queryPageSize":100 (records per query page, 1-200),
                                               "indexLagMilliseconds":3000 (queries lag writes; 0: off),
                                               "missingSortValues":"first|last|omitted","reverseChanges":"honoured|ignored",
                                               "protectedSessions":"expire|deny", "keepSignedInLifetimeSeconds":…}
          POST /control/callback               {"url":"http://127.0.0.1:8080/cloudkit/callback"} (or null)
          POST /control/latency                {"milliseconds":50}: added to every database call
          POST /control/clock                  {"advanceSeconds":3600}: move the clock (expire sessions)
          POST /control/faults                 fail the next calls: {"count":2,"status":429,
                                               "serverErrorCode":"THROTTLED","retryAfter":3,"reason":"…",
                                               "retryAfterHeader":30,"body":"json|html|empty",
                                               "operations":["records/query"]}
                                               e.g. {"status":503} TRY_AGAIN_LATER; {"status":503,"body":"html"}
          POST /control/item-faults            per-item errors for the next records/modify operations:
                                               {"count":1,"serverErrorCode":"CONFLICT","recordName":"…"}
                                               (also QUOTA_EXCEEDED, …)
          POST /control/faults/clear           drop pending faults
          POST /control/sessions/expire        {"user":"alice@example.com"} or {} for every session
          GET  /control/users                  every user
          GET  /control/users/{user}           one user ({user} is an Apple ID or a _userRecordName)
          POST /control/users/{user}/flags     {"advancedDataProtection":true,"webAccessOff":false}
          POST /control/users/{user}/sessions  {"keepSignedIn":false} → {"userRecordName","webAuthToken"}
          GET  /control/users/{user}/records?zone=MustDo&recordType=Todo
          POST /control/users/{user}/records   {"zone":"MustDo","records":[{"recordName","recordType","fields"}]}
        """
}
