/// Sessions: minting, checking, rotating and expiring web auth tokens.
extension World {
    /// Most tokens kept alive per user when old tokens stay valid after rotation.
    static let maxTokensPerUser = 1000

    /// A new session for a user; `lifetime` in ms, nil for never.
    mutating func mintSession(userKey: String, lifetime: Int64?, now: Int64) -> String {
        let token = Opaque.webAuthToken()
        sessions[token] = Session(
            userRecordName: userKey, expiresAt: lifetime.map { now + $0 }, lifetimeMilliseconds: lifetime)
        users[userKey]?.tokens.append(token)
        trimTokens(userKey)
        return token
    }

    /// The live session a token opens, if any.
    func session(for token: String?, now: Int64) -> Session? {
        guard let token, let session = sessions[token], users[session.userRecordName] != nil else { return nil }
        if let expiry = session.expiresAt, expiry <= now { return nil }
        return session
    }

    /// Issues the next token after a response; the old one dies unless settings keep it.
    mutating func rotate(_ token: String, now: Int64) -> String? {
        guard let session = session(for: token, now: now) else { return nil }
        let next = Opaque.webAuthToken()
        var renewed = session
        if settings.rotationRenewsLifetime, let lifetime = session.lifetimeMilliseconds {
            renewed.expiresAt = now + lifetime
        }
        sessions[next] = renewed
        users[session.userRecordName]?.tokens.append(next)
        if settings.rotation == .invalidate {
            sessions[token] = nil
            users[session.userRecordName]?.tokens.removeAll { $0 == token }
        }
        trimTokens(session.userRecordName)
        return next
    }

    /// Ends every session of one user (or of everyone); returns how many ended.
    mutating func expireSessions(userKey: String?) -> Int {
        let doomed = sessions.filter { userKey == nil || $0.value.userRecordName == userKey }.map(\.key)
        for token in doomed { sessions[token] = nil }
        for key in users.keys where userKey == nil || key == userKey { users[key]?.tokens.removeAll() }
        return doomed.count
    }

    /// A sign-in link for `redirectURL`, valid for ten minutes.
    mutating func pendingSignIn(now: Int64) -> String {
        if pendingSignIns.count > 1000 { pendingSignIns = pendingSignIns.filter { $0.value > now } }
        let token = Opaque.signInToken()
        pendingSignIns[token] = now + 600_000
        return token
    }

    private mutating func trimTokens(_ userKey: String) {
        guard let count = users[userKey]?.tokens.count, count > Self.maxTokensPerUser else { return }
        let excess = users[userKey]!.tokens.prefix(count - Self.maxTokensPerUser)
        for token in excess { sessions[token] = nil }
        users[userKey]!.tokens.removeFirst(excess.count)
    }
}
