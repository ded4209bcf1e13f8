"""One layer that watches a running application: a child process runs the driver (or replays a
recording) under one tracer (`watch.Tracer`) and reports what ran (`child`, `process`); the
observation is merged into the static analysis (`merge`) and saved in the scanned project
(`saved`). Importing this package imports neither torch nor the application."""
