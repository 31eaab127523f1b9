/// Why a transfer failed. Every failure is one of these; none is silent.
public enum TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link was not usable when the transfer started (the connection's state).
    case notConnected(state: String)
    /// The payload or chunk size cannot be expressed (more than 2³² chunks, a chunk that does
    /// not fit one write).
    case invalidParameters(String)
    /// The peer refused START.
    case peerRejected(TransferStartAck.Status)
    /// The peer stopped answering in `phase` (`start`, `stream`, `finish`).
    case peerSilent(phase: String, afterMs: Double)
    /// A chunk was sent `attempts` times without being acknowledged.
    case tooManyRetransmissions(sequence: UInt64, attempts: Int)
    /// The peer broke the protocol; the transfer was aborted.
    case protocolViolation(TransferProtocolViolation)
    /// The peer received every byte but the SHA-256 did not match.
    case hashMismatch
    /// The peer aborted.
    case peerAborted(TransferAbort.Reason)
    /// The link went down and did not come back (the connection gave up or was closed).
    case disconnected(ConnectionError?)
    /// Resumed too often.
    case tooManyResumes(Int)
    /// ``TransferSender/cancel()`` was called.
    case cancelled

    public var description: String {
        switch self {
        case .notConnected(let state): return "link not ready (\(state))"
        case .invalidParameters(let text): return "invalid transfer parameters: \(text)"
        case .peerRejected(let status): return "peer rejected the transfer: \(status)"
        case .peerSilent(let phase, let ms): return "peer silent for \(Int(ms)) ms during \(phase)"
        case .tooManyRetransmissions(let sequence, let attempts): return "chunk \(sequence) unacknowledged after \(attempts) sends"
        case .protocolViolation(let violation): return "protocol violation: \(violation)"
        case .hashMismatch: return "SHA-256 mismatch at the peer"
        case .peerAborted(let reason): return "peer aborted: \(reason)"
        case .disconnected(let error): return "disconnected" + (error.map { ": \($0)" } ?? "")
        case .tooManyResumes(let count): return "gave up after \(count) resumes"
        case .cancelled: return "cancelled"
        }
    }
}

/// A peer's breach of the transfer protocol.
public enum TransferProtocolViolation: Sendable, Hashable, CustomStringConvertible {
    /// An ACK for a chunk that was never sent (`highestSent` is the highest sent, if any).
    case ackForUnsentChunk(sequence: UInt64, highestSent: UInt64?)
    /// START-ACK asked to resume past the last chunk.
    case resumeBeyondEnd(resumeFrom: UInt64, chunkCount: UInt64)
    /// START-ACK granted a zero window.
    case zeroWindow
    /// DONE reported success with a different size.
    case doneWithWrongSize(received: UInt64, expected: UInt64)

    public var description: String {
        switch self {
        case .ackForUnsentChunk(let sequence, let highest):
            return "ACK for chunk \(sequence), never sent (highest sent: \(highest.map(String.init) ?? "none"))"
        case .resumeBeyondEnd(let resume, let count): return "resume from \(resume) beyond \(count) chunks"
        case .zeroWindow: return "zero window granted"
        case .doneWithWrongSize(let received, let expected): return "DONE reports \(received) bytes, sent \(expected)"
        }
    }
}
