/// The fake Apple sign-in: a link from `redirectURL`, an Apple ID typed on the page, a session.
extension World {
    enum SignInOutcome: Equatable {
        /// Signed in: send the browser to the callback with this token.
        case signedIn(token: String)
        /// The link is unknown or expired.
        case expiredLink
        /// No Apple ID was typed.
        case missingAppleID
        /// Advanced Data Protection: Apple's `validateToken` answers `{"status":13}` and the page
        /// shows "Authentication Error".
        case advancedDataProtection
        /// "Access iCloud Data on the Web" is off (`status` 12).
        case webAccessOff
    }

    func isPendingSignIn(_ link: String?, now: Int64) -> Bool {
        guard let link, let expiry = pendingSignIns[link] else { return false }
        return expiry > now
    }

    mutating func signIn(
        link: String?, appleID: String, keepSignedIn: Bool, zoneName: String?, now: Int64
    ) -> SignInOutcome {
        guard isPendingSignIn(link, now: now), let link else { return .expiredLink }
        guard !Opaque.normalized(appleID).isEmpty else { return .missingAppleID }
        let existing = users[Opaque.userRecordName(appleID: appleID)]
        if existing?.advancedDataProtection == true { return .advancedDataProtection }
        if existing?.webAccessOff == true { return .webAccessOff }
        pendingSignIns[link] = nil
        let key = ensureUser(appleID: appleID, zoneName: zoneName, now: now)
        stats.signIns += 1
        return .signedIn(
            token: mintSession(userKey: key, lifetime: settings.sessionLifetime(keepSignedIn: keepSignedIn), now: now))
    }
}
