#!/usr/bin/env python3
"""Writes Sources/HealthServer/Resources/openapi.json, the app API's OpenAPI 3.1 document.

The document is hand-written here (as Python data, so it is always valid JSON) rather than
generated from code; HealthServerTests checks it against the router's routes and validates
real responses against its schemas, and .ci/run validates it with openapi-spec-validator.
"""
import json, os

def ref(name): return {"$ref": f"#/components/schemas/{name}"}
def arr(items, **kw): return {"type": "array", "items": items, **kw}
S = {"type": "string"}
NS = {"type": ["string", "null"]}
DT = {"type": "string", "format": "date-time"}
def obj(props, required=None, additional=False):
    o = {"type": "object", "properties": props, "required": required if required is not None else list(props)}
    if not additional: o["additionalProperties"] = False
    return o
def err(desc): return {"description": desc, "content": {"application/json": {"schema": ref("Error")}}}
def ok(schema, desc="OK", status="200"): return {status: {"description": desc, "content": {"application/json": {"schema": schema}}}}
def q(name, desc, schema=S, required=False): return {"name": name, "in": "query", "required": required, "description": desc, "schema": schema}
def p(name, desc): return {"name": name, "in": "path", "required": True, "description": desc, "schema": S}
def body(schema): return {"required": True, "content": {"application/json": {"schema": schema}}}

# The one date rule of both front ends (HealthVocabulary's DateBound).
DATES = ("Dates are FHIR dates (2024, 2024-05, 2024-05-01), ISO 8601 date-times (a time without a zone is UTC) or seconds since 1970. "
         "A date without a time covers its whole year, month or day: as a start it starts when that period starts, as an end it "
         "includes all of it. A date-time or a number is an instant: included as a start, excluded as an end. A start that is not "
         "before its end is a 400.")
def date_from(what): return q(what[0], f"{what[1]} from (inclusive). " + DATES)
def date_to(what): return q(what[0], f"{what[1]} to: a date includes its whole period, an instant is excluded. " + DATES)

common = {"401": {"$ref": "#/components/responses/Unauthorized"}, "429": {"$ref": "#/components/responses/RateLimited"}}
def responses(main, *extra):
    r = dict(main); r.update(common)
    for code in extra:
        r[code] = {"400": err("A parameter or the body is malformed; the message names it."),
                   "404": err("Nothing here for this app (a denied record looks exactly like a missing one)."),
                   "409": err("The request is in another state (not answered yet, collected already, too many pending)."),
                   "413": err("The body is larger than the server accepts.")}[code]
    return r

clinical_types = ["allergy", "condition", "immunization", "lab-result", "medication", "procedure", "vital-sign", "coverage", "clinical-note"]
context_categories = ["personal-details", "visits", "practitioner-details", "social-history", "other-observations", "claims", "care-plans", "medication-details", "devices", "other"]

doc = {
  "openapi": "3.1.0",
  "info": {
    "title": "HealthRecords app API",
    "version": "1.0.0",
    "description": "How apps on other machines read a person's health records the way apps on a phone use HealthKit: "
      "OAuth2 client credentials, an authorization sheet the person answers in a browser, record and anchored queries "
      "through the person's grants (a denied or undecided type answers exactly like an empty store), change events, "
      "webhooks, and verifiable records shared one time only. The person's HTML pages are not part of this API.",
  },
  "servers": [{"url": "/"}],
  "security": [{"bearer": []}],
  "paths": {
    "/token": {"post": {
      "operationId": "getToken", "summary": "OAuth2 client credentials: an access token for an app.", "security": [{}, {"clientBasic": []}],
      "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj({
          "grant_type": {"type": "string", "enum": ["client_credentials", "authorization_code", "refresh_token"],
                         "description": "client_credentials for this API; authorization_code and refresh_token are SMART App Launch's grants (docs/smart.md)."},
          "client_id": S, "client_secret": S, "code": S, "redirect_uri": S, "code_verifier": S, "refresh_token": S, "scope": S,
          "client_assertion_type": S, "client_assertion": S}, required=["grant_type"])}}},
      "responses": {**ok(ref("Token")), "400": err("Missing or unsupported grant_type."), "401": err("Wrong client id or secret (invalid_client)."),
                    "413": err("The body is larger than the server accepts."), "429": {"$ref": "#/components/responses/RateLimited"}}}},
    "/authorization-requests": {"post": {
      "operationId": "requestAuthorization", "summary": "Ask the person to allow types (HealthKit's authorization sheet).",
      "description": "Answers 201 with the URL the person opens. When nothing needs asking (every type decided, no new data waiting) the request completes at once with no URL.",
      "requestBody": body(ref("AuthorizationRequestBody")),
      "responses": responses(ok(ref("AuthorizationRequest"), "Created", "201"), "400", "409", "413")}},
    "/authorization-requests/{id}": {"get": {
      "operationId": "getAuthorizationRequest", "summary": "Poll an authorization request.", "parameters": [p("id", "The request id.")],
      "responses": responses(ok(ref("AuthorizationRequest")), "404")}},
    "/authorization-status": {"get": {
      "operationId": "getAuthorizationStatus", "summary": "Whether the app should ask for these types (HKAuthorizationRequestStatus).",
      "parameters": [q("types", "Comma-separated type names the app registered for.", required=True)],
      "responses": responses(ok(ref("AuthorizationStatus")), "400")}},
    "/records": {"get": {
      "operationId": "getRecords", "summary": "Clinical records the app may see (HealthKit's sample query).",
      "parameters": [
        q("type", "Clinical type.", {"type": "string", "enum": clinical_types}),
        q("resourceType", "FHIR resource type, e.g. Observation."),
        q("source", "Source identifier."),
        date_from(("from", "Clinical date")),
        date_to(("to", "Clinical date")),
        date_from(("addedFrom", "When the store added the record,")),
        date_to(("addedTo", "When the store added the record,")),
        q("limit", "The most records to return (the server caps it).", {"type": "integer", "minimum": 0}),
        q("sort", "Order: added, clinical, -added, -clinical (newest first).", {"type": "string", "enum": ["added", "clinical", "-added", "-clinical"]}),
      ],
      "responses": responses(ok(ref("RecordList")), "400")}},
    "/records/{source}/{resourceType}/{id}": {"get": {
      "operationId": "getRecord", "summary": "One record or context resource by identity; 404 unless its consent category is granted (and, under ask, approved).",
      "parameters": [p("source", "Source identifier, percent-encoded (a / is %2F)."), p("resourceType", "FHIR resource type."), p("id", "FHIR resource id.")],
      "responses": responses(ok(ref("Record")), "404")}},
    "/changes": {"get": {
      "operationId": "getChanges", "summary": "What changed since an anchor (HealthKit's anchored object query).",
      "parameters": [q("type", "Clinical type.", {"type": "string", "enum": clinical_types}),
                     q("anchor", "The opaque anchor token of the previous answer; omit for everything. Tokens are the app's own: they hide how many changes it may not see lie between two of them."),
                     q("limit", "The most changes to return.", {"type": "integer", "minimum": 0})],
      "responses": responses(ok(ref("Changes")), "400")}},
    "/observe": {"get": {
      "operationId": "observe", "summary": "Server-Sent Events announcing new anchors (HealthKit's observer query).",
      "description": "Each event is `id: ANCHOR`, `event: change`, `data: ChangeEvent`. Comments keep the connection alive. Reconnect with Last-Event-ID to hear of what was missed.",
      "parameters": [q("types", "Comma-separated clinical types; all the app may read when omitted."), q("anchor", "Announce changes after this anchor."),
                     {"name": "Last-Event-ID", "in": "header", "required": False, "description": "The last event id seen (an anchor).", "schema": S}],
      "responses": responses({"200": {"description": "An event stream.", "content": {"text/event-stream": {"schema": S}}}}, "400", "409")}},
    "/webhooks": {
      "get": {"operationId": "listWebhooks", "summary": "The app's webhooks.", "responses": responses(ok(ref("WebhookList")))},
      "post": {"operationId": "registerWebhook", "summary": "Register a webhook for background delivery.",
        "description": "Each notice is a POST of a ChangeEvent with X-HealthRecords-Signature: t=UNIX,v1=HEX, HEX = HMAC-SHA-256(key = SHA-256(client_secret), UNIX + '.' + body); retried with exponential backoff.",
        "requestBody": body(ref("WebhookBody")), "responses": responses(ok(ref("Webhook"), "Created", "201"), "400", "409", "413")}},
    "/webhooks/{id}": {"delete": {
      "operationId": "deleteWebhook", "summary": "Remove a webhook.", "parameters": [p("id", "The webhook id.")],
      "responses": responses({"204": {"description": "Removed."}}, "404")}},
    "/verifiable-record-requests": {"post": {
      "operationId": "requestVerifiableRecords", "summary": "Ask the person to share verifiable records, one time only.",
      "requestBody": body(ref("VerifiableRecordRequestBody")),
      "responses": responses(ok(ref("VerifiableRecordRequest"), "Created", "201"), "400", "409", "413")}},
    "/verifiable-record-requests/{id}": {"get": {
      "operationId": "getVerifiableRecordRequest", "summary": "Poll a verifiable-record request.", "parameters": [p("id", "The request id.")],
      "responses": responses(ok(ref("VerifiableRecordRequest")), "404")}},
    "/verifiable-record-requests/{id}/records": {"post": {
      "operationId": "collectVerifiableRecords", "summary": "Collect the records the person shared, once.", "parameters": [p("id", "The request id.")],
      "responses": responses(ok(ref("VerifiableRecordList")), "404", "409")}},
    "/openapi.json": {"get": {"operationId": "getOpenAPI", "summary": "This document.", "security": [{}],
      "responses": {"200": {"description": "The OpenAPI document.", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/health": {"get": {"operationId": "getHealth", "summary": "Whether the server answers.", "security": [{}],
      "responses": ok(ref("Health"))}},
    "/healthz": {"get": {"operationId": "getLiveness", "summary": "Liveness probe (the same answer as /health).", "security": [{}],
      "responses": ok(ref("Health"))}},
    "/revoke": {"post": {
      "operationId": "revokeToken", "summary": "RFC 7009: revoke an access or refresh token and every token of its grant.", "security": [{}, {"clientBasic": []}],
      "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj({
          "token": S, "token_type_hint": S, "client_id": S, "client_secret": S, "client_assertion_type": S, "client_assertion": S}, required=["token"])}}},
      "responses": {"200": {"description": "Revoked (or never valid for this client)."}, "400": err("A parameter is missing."),
                    "401": err("The client could not be authenticated.")}}},
    "/introspect": {"post": {
      "operationId": "introspectToken", "summary": "RFC 7662: whether a token of the calling client is active.", "security": [{}, {"clientBasic": []}],
      "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj({
          "token": S, "token_type_hint": S, "client_id": S, "client_secret": S, "client_assertion_type": S, "client_assertion": S}, required=["token"])}}},
      "responses": {**ok(obj({"active": {"type": "boolean"}, "scope": S, "client_id": S, "token_type": S, "exp": {"type": "integer"},
                               "patient": S, "iss": S}, required=["active"])),
                    "400": err("A parameter is missing."), "401": err("The client could not be authenticated.")}}},
    "/.well-known/jwks.json": {"get": {"operationId": "getJWKS", "summary": "The public keys id tokens are signed with (ES256).", "security": [{}],
      "responses": {"200": {"description": "A JWK set.", "content": {"application/jwk-set+json": {"schema": {"type": "object"}}}}}}},
  },
  "components": {
    "securitySchemes": {
      "bearer": {"type": "http", "scheme": "bearer", "description": "An access token from POST /token."},
      "clientBasic": {"type": "http", "scheme": "basic", "description": "client_id:client_secret, instead of the form fields."},
    },
    "responses": {
      "Unauthorized": {"description": "No token, or a wrong or expired one (invalid_token); says nothing else.",
                       "content": {"application/json": {"schema": ref("Error")}}},
      "RateLimited": {"description": "The app sent more requests than its rate allows; see Retry-After.",
                      "headers": {"Retry-After": {"schema": {"type": "integer"}}}, "content": {"application/json": {"schema": ref("Error")}}},
    },
    "schemas": {
      "Error": obj({"error": {"type": "string", "enum": ["invalid_request", "invalid_token", "invalid_client", "unsupported_grant_type", "not_found",
                                                      "conflict", "body_too_large", "rate_limited", "timeout", "server_error"]},
                    "message": S}, required=["error"]),
      "Token": obj({"access_token": S, "token_type": {"type": "string", "enum": ["Bearer"]}, "expires_in": {"type": "integer"}}),
      "AuthorizationRequestBody": obj({"types": arr(S, minItems=1), "redirectUri": {"type": "string", "format": "uri"}}, required=["types"]),
      "AuthorizationRequest": obj({"id": S, "status": {"type": "string", "enum": ["pending", "completed", "failed"]}, "url": NS,
                                   "error": {"type": "string", "enum": ["requiredAuthorizationDenied"]}, "types": arr(S)},
                                  required=["id", "status", "url", "types"]),
      "AuthorizationStatus": obj({"status": {"type": "string", "enum": ["shouldRequest", "unnecessary"]}}),
      "Record": obj({"source": S, "sourceName": S, "resourceType": S, "id": S,
                     "clinicalType": {"type": ["string", "null"], "enum": clinical_types + [None]}, "displayName": S, "fhirVersion": S,
                     "clinicalDate": NS, "addedDate": DT,
                     "anchor": {"type": "string", "description": "The app's opaque anchor token for this change (anchored queries only)."},
                     "category": {"type": "string", "enum": context_categories,
                                  "description": "The consent category of a context resource (no clinical type); each needs its own grant."},
                     "resource": {"type": "object", "description": "The FHIR resource, its bytes exactly as stored (decimals untouched)."}},
                    required=["source", "sourceName", "resourceType", "id", "clinicalType", "displayName", "fhirVersion", "clinicalDate", "addedDate", "resource"]),
      "RecordList": obj({"records": arr(ref("Record"))}),
      "DeletedRecord": obj({"source": S, "resourceType": S, "id": S, "clinicalType": {"type": "string", "enum": clinical_types}, "deletedDate": DT, "anchor": S}),
      "Changes": obj({"added": arr(ref("Record")), "deleted": arr(ref("DeletedRecord")), "anchor": S}),
      "ChangeEvent": obj({"webhook": S, "types": arr(S), "anchor": S}, required=["types", "anchor"]),
      "WebhookBody": obj({"url": {"type": "string", "format": "uri"}, "types": arr(S)}, required=["url"]),
      "Webhook": obj({"id": S, "url": S, "types": {"type": ["array", "null"], "items": S}}),
      "WebhookList": obj({"webhooks": arr(ref("Webhook"))}),
      "VerifiableRecordRequestBody": obj({"recordTypes": arr(S, minItems=1),
                                          "relevantDateFrom": {"type": "string", "description": "The card's relevant date from (inclusive). " + DATES},
                                          "relevantDateTo": {"type": "string", "description": "The card's relevant date to: a date includes its whole period, an instant is excluded. " + DATES},
                                          "redirectUri": {"type": "string", "format": "uri"},
                                          "sourceTypes": {**arr({"type": "string", "enum": ["SMARTHealthCard", "EUDigitalCOVIDCertificate"]}),
                                                          "description": "The kinds of record asked for (HealthKit's sourceTypes); any when absent."}},
                                         required=["recordTypes"]),
      "VerifiableRecordRequest": obj({"id": S, "status": {"type": "string", "enum": ["pending", "completed", "collected"]}, "url": NS}),
      "VerifiableRecord": obj({"id": S, "sourceType": {"type": "string", "enum": ["SMARTHealthCard", "EUDigitalCOVIDCertificate"]}, "issuerIdentifier": S, "recordTypes": arr(S),
                               "itemNames": arr(S), "subject": obj({"fullName": S, "dateOfBirth": NS}), "issuedDate": DT,
                               "relevantDate": {"type": ["string", "null"], "format": "date-time"},
                               "expirationDate": {"type": ["string", "null"], "format": "date-time"},
                               "payload": {"type": "object", "description": "An EU DCC's decoded payload (ver, nam, dob, and one of v, t, r); absent for a SMART Health Card."},
                               "dataRepresentation": {"type": "string", "description": "The compact JWS of a SMART Health Card, or the HC1: QR text of an EU DCC; verify it yourself."}},
                              required=["id", "sourceType", "issuerIdentifier", "recordTypes", "itemNames", "subject", "issuedDate", "relevantDate", "expirationDate", "dataRepresentation"]),
      "VerifiableRecordList": obj({"records": arr(ref("VerifiableRecord"))}),
      "Health": obj({"status": {"type": "string", "enum": ["ok"]}}),
    },
  },
}

out = os.path.join(os.path.dirname(__file__), "..", "Sources", "HealthServer", "Resources", "openapi.json")
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
print(f"wrote {os.path.normpath(out)}")
