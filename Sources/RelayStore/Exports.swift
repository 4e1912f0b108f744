// `Locked` lives in RelaySync (the HTTP server and client use it too); modules that import
// RelayStore keep seeing it.
@_exported import RelaySync
