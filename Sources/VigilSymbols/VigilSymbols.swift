// VigilSymbols — see docs/architecture.md for this module's room. Its sources arrive with the issue that builds it.
