import RelayHTTP

extension AuthorizationServer {
    /// Whether `request` is a registration this server refuses from its head alone: a
    /// `POST /register` from an address that keeps sending new metadata past its budget
    /// (`RegistrationShedding`). Cheap (no store operation, no hashing); for
    /// `ServerConfiguration.lowPriority`, which then serves such requests after everyone else's
    /// and drops their bodies unread.
    package func shedsRegistration(_ request: Request) -> Bool {
        request.method == .post && request.path == paths.register && registrationShedWait(request) != nil
    }

    /// `inner`, with the registrations `shedsRegistration` names answered at once: the same 429
    /// as the registration path gives (body, `Retry-After`, CORS headers, the
    /// `registrations_per_address` refusal event), without parsing the body or starting a task.
    package func sheddingRegistrations(_ inner: Responder) -> Responder {
        let register = paths.register
        return Responder { request in
            guard request.method == .post, request.path == register, let wait = self.registrationShedWait(request)
            else { return inner(request) }
            var response = self.clients.tooManyNewClients(wait).response()
            CORS.apply(to: &response)
            return .now(response)
        }
    }

    /// Seconds the client should wait when this registration is shed, else nil. A request whose
    /// body the server dropped (it was shed at its head) is refused even if the address's window
    /// ended since: there is nothing left to register, and it may try again at once.
    func registrationShedWait(_ request: Request) -> Int? {
        let shed = request.origin.client.flatMap { clients.shedding.wait($0.block, now: context.now) }
        return shed ?? (request.bodyDropped ? 1 : nil)
    }
}
