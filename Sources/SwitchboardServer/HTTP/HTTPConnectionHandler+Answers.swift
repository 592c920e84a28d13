import SwitchboardChat
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardReaders

/// Carrying out a route's answer: a response now, a job for the reader pool
/// (the connection reads on meanwhile but holds its input, so pipelined
/// requests are answered in order), or the upgrade to WebSocket.
extension HTTPConnectionHandler {
    func carryOut(
        _ answer: HTTPAnswer, for request: HTTPRequest, leftover: UnsafeMutableRawBufferPointer,
        on connection: IO
    ) {
        switch answer {
        case .now(let response):
            respond(response, to: request, on: connection)
        case .later(let job):
            answerLater(job, to: request, on: connection)
        case .download(let plan):
            startDownload(plan, for: request, on: connection)
        case .upgrade(let configuration, let application):
            if let refusal = WebSocketUpgrade.perform(
                request, configuration: configuration, application: application, leftover: leftover,
                on: connection, context: context)
            {
                respondAndClose(refusal, on: connection)
            } else {
                context.metrics.recordHTTPRequest(route: route, status: 101)
            }
        }
    }

    /// Runs `job` on the reader pool and sends its answer when it comes back;
    /// meanwhile this connection reads on but holds its input.
    private func answerLater(
        _ job: @escaping @Sendable (ChatQueries) -> HTTPResponse, to request: HTTPRequest, on connection: IO
    ) {
        guard let chat = context.chat else {
            respond(.noDatabase, to: request, on: connection)
            return
        }
        awaitingResponse = true
        // The answer comes back through a closure that names no generic type: only this
        // loop calls it, and a @Sendable closure may not capture the connection's type.
        let finish = LoopBound { (response: HTTPResponse) in self.finish(response, to: request, on: connection) }
        let loop = chat.cores.handoff(forLoop: connection.loop.index)
        let submitted = chat.readers.run(job, thenOn: loop, first: true) { response in finish.value(response) }
        if !submitted {
            awaitingResponse = false
            respond(
                .api(ChatError(.overloaded, "too many requests in flight; retry later")), to: request, on: connection)
        }
    }

    func finish(_ response: HTTPResponse, to request: HTTPRequest, on connection: IO) {
        awaitingResponse = false
        guard connection.isOpen, connection.handler === self else { return }
        respond(response, to: request, on: connection)
        continueAfterAnswer(on: connection)
    }

    /// The pending answer is out: what arrived meanwhile is handled now.
    func continueAfterAnswer(on connection: IO) {
        if !held.isEmpty, connection.isOpen {
            var pending: [UInt8] = []
            swap(&pending, &held)
            pending.withUnsafeMutableBytes { received($0, on: connection) }
        }
        // The peer closed meanwhile and everything it sent is answered: close
        // now, as `peerClosed` would have. (A held request may have upgraded
        // the connection; its new handler learns of the close the same way.)
        if closeWhenAnswered, !awaitingResponse, connection.isOpen {
            connection.handler?.peerClosed(on: connection)
        }
    }

    func hold(_ bytes: UnsafeRawBufferPointer, on connection: IO) {
        guard !bytes.isEmpty else { return }
        // One more whole request at most; a client that sends more without reading is cut off.
        let limit = context.httpLimits.maxHeaderBytes + context.httpLimits.maxBodyBytes + 8192
        guard held.count + bytes.count <= limit else {
            connection.closeNow()
            return
        }
        held.append(contentsOf: bytes)
    }
}
