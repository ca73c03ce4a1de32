"""Watching questions and answers: one channel (`channel`) that hooks and telemetry listen on.

`hooks` (the user's `ElicitHook`s), `telemetry` (OpenTelemetry spans and metrics),
`heartbeat` (progress while a push question waits) and `logs` (keeping answer values out of
the SDK's DEBUG records). Nothing here imports the call layer: a call reports to the channel.
"""
