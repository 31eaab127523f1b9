import Foundation

/// OTLP/JSON documents written for these tests from the OTLP specification's description of
/// the JSON encoding (lowerCamelCase fields, hex ids, integer enums, 64-bit integers as strings).
public enum OTLPDocuments {
    /// A traces request shaped like the OpenTelemetry proto repository's `trace.json` example:
    /// one resource, one scope with attributes, a server span with uppercase hex ids, an
    /// attribute of each scalar kind, a span event and a link, and a client child span.
    public static let traceExample = """
    {
      "resourceSpans": [
        {
          "resource": {
            "attributes": [
              { "key": "service.name", "value": { "stringValue": "checkout-api" } },
              { "key": "service.version", "value": { "stringValue": "2.4.1" } },
              { "key": "host.name", "value": { "stringValue": "api-7f9c" } },
              { "key": "host.arch", "value": { "stringValue": "amd64" } },
              { "key": "os.type", "value": { "stringValue": "linux" } },
              { "key": "k8s.pod.name", "value": { "stringValue": "checkout-api-7f9c" } }
            ]
          },
          "scopeSpans": [
            {
              "scope": {
                "name": "com.example.tracing",
                "version": "1.3.0",
                "attributes": [ { "key": "scope.flavor", "value": { "stringValue": "plain" } } ]
              },
              "spans": [
                {
                  "traceId": "5B8EFFF798038103D269B633813FC60C",
                  "spanId": "EEE19B7EC3C1B174",
                  "parentSpanId": "EEE19B7EC3C1B173",
                  "name": "POST /orders/:id",
                  "startTimeUnixNano": "1544712660000000000",
                  "endTimeUnixNano": "1544712661000000000",
                  "kind": 2,
                  "attributes": [
                    { "key": "http.request.method", "value": { "stringValue": "POST" } },
                    { "key": "http.response.status_code", "value": { "intValue": "201" } },
                    { "key": "retry", "value": { "boolValue": false } },
                    { "key": "load", "value": { "doubleValue": 0.75 } },
                    { "key": "tags", "value": { "arrayValue": { "values": [ { "stringValue": "a" }, { "intValue": "2" } ] } } }
                  ],
                  "events": [
                    {
                      "timeUnixNano": "1544712660500000000",
                      "name": "order validated",
                      "attributes": [ { "key": "items", "value": { "intValue": "3" } } ]
                    }
                  ],
                  "links": [
                    { "traceId": "0AF7651916CD43DD8448EB211C80319C", "spanId": "B7AD6B7169203331" }
                  ],
                  "droppedAttributesCount": 0,
                  "status": { "code": 1 }
                },
                {
                  "traceId": "5B8EFFF798038103D269B633813FC60C",
                  "spanId": "EEE19B7EC3C1B175",
                  "parentSpanId": "EEE19B7EC3C1B174",
                  "name": "SELECT orders",
                  "startTimeUnixNano": "1544712660100000000",
                  "endTimeUnixNano": "1544712660300000000",
                  "kind": 3,
                  "status": { "code": 2, "message": "deadlock detected" }
                }
              ]
            }
          ]
        }
      ]
    }
    """
}
