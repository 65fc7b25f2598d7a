// The core's values and rules (manifests, settings, cycling, tap steps, device profiles,
// layouts) are part of the input manager's API: a program that imports KBHost sees them.
@_exported import KBCore
