// The types an app names when it uses the SDK, re-exported one by one so that `import Vigil`
// alone is enough (docs/sdk-api.md explains the choice).
//
// Why declaration-scoped re-exports and not the alternatives:
// - `@_exported import VigilCore` (the whole module) would put every public name of the pure
//   logic layer — detectors, parsers, OTLP document builders, the test clock, generic names
//   such as `Clamp` — into each of the app's files, and make them part of this module's
//   promise; the runtime, store and transport modules would follow the same way.
// - Typealiases keep the names but not the members: an app compiled with the
//   `MemberImportVisibility` feature (SE-0444, the default of a future language mode) cannot
//   reach a typealiased type's properties or enum cases without importing the defining module.
// A scoped `@_exported import` brings in one declaration under its own name, with its members,
// in both modes; everything else stays behind an explicit `import VigilCore`.
//
// Keep the list to what an app writes down: a type that only appears as a property of a
// diagnostics value needs no entry (its members are reachable through the value).

// Who the app is, where it runs, and how the detectors are tuned (`VigilSetup`).
@_exported import struct VigilCore.AppInfo
@_exported import struct VigilCore.DeviceInfo
@_exported import struct VigilCore.VigilConfiguration
@_exported import enum VigilCore.VigilModule
@_exported import struct VigilCore.HangConfiguration
@_exported import struct VigilCore.FrameConfiguration
@_exported import struct VigilCore.LaunchConfiguration
@_exported import struct VigilCore.ResourceConfiguration
@_exported import struct VigilCore.NetworkConfiguration
@_exported import struct VigilCore.LaunchFacts
@_exported import enum VigilCore.AppState

// Time (`VigilSetup.clock`, `LinkTracer`, `LaunchRunner.Options`).
@_exported import protocol VigilCore.VigilClock
@_exported import struct VigilCore.SystemClock

// Events and spans: a custom sink, the span recorder handed to `VigilLaunch` and `VigilBLE`,
// spans the app times itself, and the trace context put on requests.
@_exported import protocol VigilCore.EventSink
@_exported import struct VigilCore.Event
@_exported import protocol VigilCore.SpanRecorder
@_exported import struct VigilCore.SpanPayload
@_exported import enum VigilCore.SpanStatus
@_exported import enum VigilCore.SpanKind
@_exported import enum VigilCore.AttributeValue
@_exported import struct VigilCore.TraceParent

// The display link a host without one passes in (`VigilSetup.frameSource`).
@_exported import protocol VigilRuntime.FrameTimingSource
@_exported import class VigilRuntime.RunLoopFrameClock

// A second destination for every event, as OTLP/HTTP JSON (`VigilSetup.openTelemetry`).
@_exported import struct VigilTransport.OTLPExporterConfiguration

// The server's address (`VigilSetup.serverURL`): a file that imports only `Vigil` can write
// `URL(string:)` (UIKit and SwiftUI re-export Foundation anyway).
@_exported import struct Foundation.URL
