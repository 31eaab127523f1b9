// The virtual clock a simulation runs on (`VirtualTimeScheduler(clock:)`), re-exported so that
// `import VigilBLESimulation` is enough to set one up (docs/sdk-api.md explains the
// declaration-by-declaration re-exports).
@_exported import class VigilCore.TestClock
