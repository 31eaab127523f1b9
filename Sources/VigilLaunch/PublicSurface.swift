// The types an app names when it uses the launch runner, re-exported one by one so that
// `import VigilLaunch` alone is enough (the `Vigil` module does the same for the SDK; its
// PublicSurface.swift and docs/sdk-api.md explain why declaration by declaration).

// Spans of the launch tasks (`LaunchRunner.Options.spanRecorder`): the SDK's
// `Vigil.spanRecorder`, or the app's own recorder.
@_exported import protocol VigilCore.SpanRecorder
@_exported import struct VigilCore.SpanPayload

// The runner's time source (`LaunchRunner.Options.clock`).
@_exported import protocol VigilCore.VigilClock
@_exported import struct VigilCore.SystemClock

// Deadlines and timeouts (`run(until:deadline:)`, `LaunchTask(timeout:)`).
@_exported import enum Dispatch.DispatchTimeInterval
