import Foundation

/// Decides how a session ended from the marker it left and what the next launch knows
/// (``SessionEvidence``), and says why.
///
/// The rules, first match wins:
/// 1. the marker says it stopped cleanly: `exited`;
/// 2. a crash report of the session was recovered: `crashed` (noting a hang it died in);
/// 3. its hang-in-progress marker was left: `fatalHang`;
/// 4. the app's version or build, or the OS version, changed before the next launch: `exited`
///    (the update ended the old process; nothing to hold against the release);
/// 5. it was last seen in the background or suspended: `background-killed` (the system ends
///    background apps at will);
/// 6. otherwise it vanished in the foreground with no crash report, no clean exit and no
///    update: `abnormal` (the watchdog or out-of-memory termination Sentry infers the same way).
///
/// Pure: the decision time is passed in (it only goes into the reasons).
public enum SessionOutcomeDecider {
    /// The `session` payload for `marker`, decided at `decidedAt` (wall clock).
    public static func decide(_ marker: SessionMarker, evidence: SessionEvidence, decidedAt: Date) -> SessionPayload {
        var reasons: [String] = []
        let outcome: SessionOutcome
        let upgrade = upgradeReason(marker, evidence)
        if marker.endedCleanly {
            outcome = .exited
            reasons.append("the session stopped cleanly")
        } else if evidence.crashReported {
            outcome = .crashed
            reasons.append("a crash report of this session was recovered")
            if evidence.diedInHang { reasons.append("it crashed inside a main-thread hang") }
        } else if evidence.diedInHang {
            outcome = .fatalHang
            reasons.append("its hang-in-progress marker was left: the process died inside a main-thread hang")
        } else if let upgrade {
            outcome = .exited
            reasons.append(upgrade + "; the update ended the old process")
        } else if !isForeground(marker.appState) {
            outcome = .backgroundKilled
            reasons.append("no crash report and no clean exit; last seen in the \(marker.appState), where the system ends apps at will")
        } else {
            outcome = .abnormal
            reasons.append("no crash report, no clean exit and no app or OS update; last seen in the foreground: "
                + "most likely a watchdog or out-of-memory termination")
        }
        if !marker.endedCleanly {
            let gap = max(0, decidedAt.timeIntervalSince(marker.lastSeen))
            reasons.append("decided at the next launch, \(FixedDecimal.format(gap, digits: 1)) s after it was last seen")
        }
        return SessionPayload(start: marker.start, end: marker.lastSeen, durationMs: marker.durationMs,
                              foregroundMs: marker.foregroundMs, outcome: outcome, reasons: reasons,
                              lastAppState: marker.appState)
    }

    private static func isForeground(_ appState: String) -> Bool {
        guard let state = AppState(rawValue: appState) else { return true }
        return SessionTracker.isForeground(state)
    }

    private static func upgradeReason(_ marker: SessionMarker, _ evidence: SessionEvidence) -> String? {
        let old = marker.app, new = evidence.currentApp
        if old.id == new.id, old.version != new.version || old.build != new.build {
            return "the app was updated from \(old.version) (\(old.build)) to \(new.version) (\(new.build))"
        }
        if !evidence.currentOSVersion.isEmpty, marker.device.osVersion != evidence.currentOSVersion {
            return "the OS was updated from \(marker.device.osVersion) to \(evidence.currentOSVersion)"
        }
        return nil
    }
}
