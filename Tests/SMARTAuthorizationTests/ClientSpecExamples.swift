import Foundation

/// Examples copied verbatim from the SMART App Launch specification's source
/// (github.com/HL7/smart-app-launch, © HL7 International, licensed CC BY 4.0): the sample `.well-known/smart-configuration`
/// (conformance.md), the User-access Brands example bundles (input/resources/Bundle-example1…4.json),
/// and the private keys and signed assertions of authorization-example-jwks-and-signatures.md
/// (input/images/ES384.private.json, RS384.private.json), and the public app launch walk-through
/// (example-app-launch-public.md).
enum ClientSpecExamples {
    /// conformance.md, "Sample Response".
    static let smartConfiguration = #"""
{
  "issuer": "https://ehr.example.com",
  "jwks_uri": "https://ehr.example.com/.well-known/jwks.json",
  "authorization_endpoint": "https://ehr.example.com/auth/authorize",
  "token_endpoint": "https://ehr.example.com/auth/token",
  "token_endpoint_auth_methods_supported": [
    "client_secret_basic",
    "private_key_jwt"
  ],
  "grant_types_supported": [
    "authorization_code",
    "client_credentials"
  ],
  "registration_endpoint": "https://ehr.example.com/auth/register",
  "scopes_supported": ["openid", "profile", "launch", "launch/patient", "patient/*.rs", "user/*.rs", "offline_access"],
  "response_types_supported": ["code"],
  "management_endpoint": "https://ehr.example.com/user/manage",
  "introspection_endpoint": "https://ehr.example.com/user/introspect",
  "revocation_endpoint": "https://ehr.example.com/user/revoke",
  "code_challenge_methods_supported": ["S256"],
  "capabilities": [
    "launch-ehr",
    "permission-patient",
    "permission-v2",
    "client-public",
    "client-confidential-symmetric",
    "context-ehr-patient",
    "sso-openid-connect"
  ],
  "associated_endpoints": [{
    "url": "https://state.example.com",
    "capabilities": ["smart-app-state"]
  }]
}
"""#

    /// Bundle-example1.json.
    static let brandsExample1 = #"""
{
  "resourceType": "Bundle",
  "id": "example1",
  "type": "collection",
  "timestamp": "2023-09-05T20:00:43.241070-07:00",
  "entry": [
    {
      "fullUrl": "https://fhir.labs.example.com/Organization/examplelabs",
      "resource": {
        "resourceType": "Organization",
        "id": "examplelabs",
        "extension": [
          {
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "data:image/svg+xml;utf8,<svg%20xmlns='http://www.w3.org/2000/svg'%20width='1024'%20height='1024'><path%20d='M0%200h1024v1024H0z'%20style='fill:%23eee'/><text%20x='40'%20y='170'%20style='font-size:150px'>1024x1024</text></svg>"
              }
            ],
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand"
          },
          {
            "extension": [
              {
                "url": "portalName",
                "valueString": "Example Labs HealthCentral Portal"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://healthcentral.labs.example.com"
              },
              {
                "url": "portalLogo",
                "valueUrl": "data:image/svg+xml;utf8,<svg%20xmlns='http://www.w3.org/2000/svg'%20width='1024'%20height='1024'><path%20d='M0%200h1024v1024H0z'%20style='fill:%23666'/><text%20x='40'%20y='170'%20style='font-size:150px'>1024x1024</text></svg>"
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "Endpoint/examplelabs",
                  "display": "FHIR R4 Endpoint for ExampleLabs Brand"
                }
              }
            ],
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal"
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://examplelabs.org"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "laboratory",
                "display": "Laboratory"
              }
            ]
          }
        ],
        "name": "ExampleLabs",
        "alias": ["ExampleLabs Alaska", "...(more here)...", "ExampleLabs Wisconsin"],
        "telecom": [
          {
            "system": "url",
            "value": "https://labs.example.com"
          }
        ],
        "address": [
          {
            "line": ["4015 Lake Otis Pkwy"],
            "city": "Anchorage",
            "state": "AK",
            "postalCode": "99508",
            "country": "US"
          },
          {
            "state": "...(more here)...",
            "country": "US"
          },
          {
            "line": ["123 Main St"],
            "city": "Madison",
            "state": "WI",
            "postalCode": "53726",
            "country": "US"
          }
        ],
        "endpoint": [
          {
            "reference": "Endpoint/examplelabs",
            "display": "FHIR R4 Endpoint for ExampleLabs Brand"
          }
        ]
      }
    },
    {
      "fullUrl": "https://fhir.labs.example.com/Endpoint/examplelabs",
      "resource": {
        "resourceType": "Endpoint",
        "id": "examplelabs",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "4.0.1"
          }
        ],
        "status": "active",
        "address": "https://fhir.labs.example.com/r4",
        "name": "FHIR R4 Endpoint for ExampleLabs",
        "contact": [
          {
            "system": "url",
            "value": "https://dev-portal.labs.example.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    }
  ]
}
"""#

    /// Bundle-example2.json.
    static let brandsExample2 = #"""
{
  "resourceType": "Bundle",
  "id": "example2",
  "type": "collection",
  "timestamp": "2023-09-05T20:18:52.638960-07:00",
  "entry": [
    {
      "fullUrl": "https://ehr.example.com/Organization/examplehealth",
      "resource": {
        "resourceType": "Organization",
        "id": "examplehealth",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand",
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "https://example.org/examplehealth/logo/main.1024x1024.png"
              }
            ]
          },
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal",
            "extension": [
              {
                "url": "portalName",
                "valueString": "My ExampleHealth Portal"
              },
              {
                "url": "portalLogo",
                "valueUrl": "https://example.org/examplehealth/logo/main.1024x1024.png"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://example.org/examplehealth/patient-portal-url"
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "Endpoint/examplehealth-r4",
                  "display": "FHIR R4 Endpoint for ExampleHealth Brand"
                }
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "Endpoint/examplehealth-r2",
                  "display": "FHIR R2 Endpoint for ExampleHealth Brand"
                }
              }
            ]
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://examplehealth.org"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "prov",
                "display": "Healthcare Provider"
              }
            ]
          }
        ],
        "name": "ExampleHealth",
        "alias": [
          "GoodHealth Hospital",
          "GoodHealth Mental Health"
        ],
        "telecom": [
          {
            "system": "url",
            "value": "https://health.example.com"
          }
        ],
        "address": [
          {
            "city": "Madison",
            "state": "WI",
            "country": "US"
          },
          {
            "city": "Anamosa",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Cedar Rapids",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Des Moines",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Dubuque",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Fort Dodge",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Grinnell",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Marshalltown",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Peoria",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Pekin",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Muscatine",
            "state": "IA",
            "country": "US"
          },
          {
            "city": "Sioux City",
            "state": "IA",
            "country": "US"
          }
        ],
        "endpoint": [
          {
            "reference": "Endpoint/examplehealth-r2",
            "display":  "FHIR R2 Endpoint for ExampleHealth Brand"
          },
          {
            "reference": "Endpoint/examplehealth-r4",
            "display":  "FHIR R4 Endpoint for ExampleHealth Brand"
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr.example.com/Organization/ehchospital",
      "resource": {
        "resourceType": "Organization",
        "id": "ehchospital",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand",
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "data:image/svg+xml;base64,PHN2ZyB0aXRsZT0iU3Rld2FydCBNZW1vcmlhbCBIb3Nw...+IDwvc3ZnPgo="
              }
            ]
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://ehchospital.example.org"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "prov",
                "display": "Healthcare Provider"
              }
            ]
          }
        ],
        "name": "ExampleHealth Community Hospital",
        "alias": [
          "GoodHealth Madison"
        ],
        "telecom": [
          {
            "system": "url",
            "value": "https://www.ehchospital.example.com"
          }
        ],
        "address": [
          {
            "city": "Lake City",
            "state": "IA",
            "country": "US"
          }
        ],
        "partOf": {
          "reference": "Organization/examplehealth"
        }
      }
    },
    {
      "fullUrl": "https://ehr.example.com/Organization/ehpmadison",
      "resource": {
        "resourceType": "Organization",
        "id": "ehpmadison",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand",
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "https://ehpmadison.example.com/logo.png"
              }
            ]
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://ehpmadison.example.com"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "prov",
                "display": "Healthcare Provider"
              }
            ]
          }
        ],
        "name": "ExampleHealth Physicians of Madison",
        "alias": [
          "GoodHealth Madison"
        ],
        "telecom": [
          {
            "system": "url",
            "value": "https://www.ehpmadison.example.com"
          }
        ],
        "address": [
          {
            "city": "Madison",
            "state": "WI",
            "country": "US"
          }
        ],
        "partOf": {
          "reference": "Organization/examplehealth"
        }
      }
    },
    {
      "fullUrl": "https://ehr.example.com/Endpoint/examplehealth-r2",
      "resource": {
        "resourceType": "Endpoint",
        "id": "examplehealth-r2",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "1.0.2"
          }
        ],
        "status": "active",
        "address": "https://ehr.example.com/ProdFHIR/api/FHIR/R2",
        "name": "FHIR DSTU2 Endpoint for ExampleHealth",
        "contact": [
          {
            "system": "url",
            "value": "https://open.ehr.example.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr.example.com/Endpoint/examplehealth-r4",
      "resource": {
        "resourceType": "Endpoint",
        "id": "examplehealth-r4",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "4.0.1"
          }
        ],
        "status": "active",
        "address": "https://ehr.example.com/ProdFHIR/api/FHIR/R4",
        "name": "FHIR R4 Endpoint for ExampleHealth",
        "contact": [
          {
            "system": "url",
            "value": "https://open.ehr.example.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    }
  ]
}
"""#

    /// Bundle-example3.json.
    static let brandsExample3 = #"""
{
  "resourceType": "Bundle",
  "id": "example3",
  "type": "collection",
  "timestamp": "2023-09-05T20:23:42.723178-07:00",
  "entry": [
    {
      "fullUrl": "https://examplehospital.example.org/Organization/examplehospital",
      "resource": {
        "resourceType": "Organization",
        "id": "examplehospital",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand",
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "https://example.org/examplehospital-ehr1/themes/custom/logo.svg"
              }
            ]
          },
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal",
            "extension": [
              {
                "url": "portalName",
                "valueString": "ExampleHospital Patient Gateway"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://patientgateway.examplehospital.ehr1.example.org"
              },
              {
                "url": "portalDescription",
                "valueMarkdown": "Patient Gateway is an online tool to help adult patients connect with health care providers, manage appointments, and refill prescriptions.\n"
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "https://ehr1.example.com/Endpoint/examplehospital-ehr1",
                  "display": "FHIR R4 Endpoint for EHR1"
                }
              }
            ]
          },
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal",
            "extension": [
              {
                "url": "portalName",
                "valueString": "ExampleHospital Pediatric Portal"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://pediatrics.examplehospital.ehr2.example.org"
              },
              {
                "url": "portalDescription",
                "valueMarkdown": "Pediatric Portal is the entrypoint for pediatric patients."
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "https://ehr2.example.com/Endpoint/examplehospital-ehr2",
                  "display": "FHIR R4 Endpoint for EHR2"
                }
              }
            ]
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://examplehospital.example.org"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "prov",
                "display": "Healthcare Provider"
              }
            ]
          }
        ],
        "name": "ExampleHospital",
        "alias": [
          "GoodHealth Healthcare"
        ],
        "telecom": [
          {
            "system": "url",
            "value": "https://examplehospital.example.org/contact"
          }
        ],
        "address": [
          {
            "city": "Boston",
            "state": "MA"
          },
          {
            "city": "Newton",
            "state": "MA"
          },
          {
            "city": "Waltham",
            "state": "MA"
          }
        ],
        "endpoint": [
          {
            "reference": "https://ehr1.example.com/Endpoint/examplehospital-ehr1",
            "display": "FHIR R4 Endpoint for EHR1"
          },
          {
            "reference": "https://ehr2.example.com/Endpoint/examplehospital-ehr2",
            "display": "FHIR R4 Endpoint for EHR2"
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr1.example.com/Endpoint/examplehospital-ehr1",
      "resource": {
        "resourceType": "Endpoint",
        "id": "examplehospital-ehr1",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "4.0.1"
          }
        ],
        "status": "active",
        "address": "https://ehr1.example.org/ExampleHospital/api/FHIR/R4",
        "name": "FHIR R4 Endpoint for ExampleHospital's EHR1 Patient Gateway",
        "contact": [
          {
            "system": "url",
            "value": "https://open.ehr1.example.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr2.example.com/Endpoint/examplehospital-ehr2",
      "resource": {
        "resourceType": "Endpoint",
        "id": "examplehospital-ehr2",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "4.0.1"
          }
        ],
        "status": "active",
        "address": "https://ehr2.example.org/ExampleHospital/api/FHIR/R4",
        "name": "FHIR R4 Endpoint for ExampleHospital's EHR2 Pediatric Portal",
        "contact": [
          {
            "system": "url",
            "value": "https://open.ehr2.example.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    }
  ]
}
"""#

    /// Bundle-example4.json.
    static let brandsExample4 = #"""
{
  "resourceType": "Bundle",
  "id": "example4",
  "type": "collection",
  "timestamp": "2023-09-05T20:36:42.268403-07:00",
  "entry": [
    {
      "fullUrl": "https://ehr.example.org/Organization/brand1",
      "resource": {
        "resourceType": "Organization",
        "id": "brand1",
        "extension": [
          {
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "https://example.org/brand1/logo/main.svg"
              }
            ],
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand"
          },
          {
            "extension": [
              {
                "url": "portalName",
                "valueString": "Brand1 Portal"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://example.org/chart.brand1.org"
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "Endpoint/coequal-example",
                  "display": "FHIR R4 Endpoint for Brand1/Brand2"
                }
              }
            ],
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal"
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://brand1.example.com"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "ins",
                "display": "Insurance Company"
              }
            ]
          }
        ],
        "name": "Brand1",
        "alias": ["Umbrella Insurance"],
        "telecom": [
          {
            "system": "url",
            "value": "https://www.brand1.example.com"
          }
        ],
        "address": [
          {
            "city": "Napa",
            "state": "CA",
            "country": "US"
          },
          {
            "city": "Sonoma",
            "state": "CA",
            "country": "US"
          },
          {
            "city": "St Helena",
            "state": "CA",
            "country": "US"
          }
        ],
        "endpoint": [
          {
            "reference": "Endpoint/coequal-example",
            "display": "FHIR R4 Endpoint for Brand1/Brand2"
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr.example.org/Organization/brand2",
      "resource": {
        "resourceType": "Organization",
        "id": "brand2",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-brand",
            "extension": [
              {
                "url": "brandLogo",
                "valueUrl": "https://example.org/brand2/logo/main.svg"
              }
            ]
          },
          {
            "url": "http://hl7.org/fhir/StructureDefinition/organization-portal",
            "extension": [
              {
                "url": "portalName",
                "valueString": "Brand2 Portal"
              },
              {
                "url": "portalUrl",
                "valueUrl": "https://example.org/chart.brand2.org"
              },
              {
                "url": "portalEndpoint",
                "valueReference": {
                  "reference": "Endpoint/coequal-example",
                  "display": "FHIR R4 Endpoint for Brand1/Brand2"
                }
              }
            ]
          }
        ],
        "identifier": [
          {
            "system": "urn:ietf:rfc:3986",
            "value": "https://brand2.example.com"
          }
        ],
        "active": true,
        "type": [
          {
            "coding": [
              {
                "system": "http://terminology.hl7.org/CodeSystem/organization-type",
                "code": "ins",
                "display": "Insurance Company"
              }
            ]
          }
        ],
        "name": "Brand2",
        "alias": ["Shield Insurance"],
        "telecom": [
          {
            "system": "url",
            "value": "https://www.brand1.example.com"
          }
        ],
        "address": [
          {
            "city": "Sonoma",
            "state": "CA",
            "country": "US"
          },
          {
            "city": "San Rafael",
            "state": "CA",
            "country": "US"
          },
          {
            "city": "Santa Rosa",
            "state": "CA",
            "country": "US"
          }
        ],
        "endpoint": [
          {
            "reference": "Endpoint/coequal-example",
            "display": "FHIR R4 Endpoint for Brand1/Brand2"
          }
        ]
      }
    },
    {
      "fullUrl": "https://ehr.example.org/Endpoint/coequal-example",
      "resource": {
        "resourceType": "Endpoint",
        "id": "coequal-example",
        "extension": [
          {
            "url": "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
            "valueCode": "4.0.1"
          }
        ],
        "status": "active",
        "address": "https://example.org/brand1.org/ProdFHIR/api/FHIR/R4",
        "name": "FHIR R4 Endpoint for Brand1/Brand2",
        "contact": [
          {
            "system": "url",
            "value": "https://open.ehr.com"
          }
        ],
        "connectionType": {
          "code": "hl7-fhir-rest",
          "system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
        },
        "payloadType": [
          {
            "coding": [
              {
                "code": "none",
                "system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type"
              }
            ]
          }
        ]
      }
    }
  ]
}
"""#

    /// ES384.private.json: a public key and its private twin, same kid.
    static let es384PrivateJWKS = #"""
{
    "keys": [
        {
            "kty": "EC",
            "crv": "P-384",
            "x": "pyqburM9y8HPcFhNosDW6ngoVEJitqXi_HJgI5hYqX21PoFDwCbYirGy_o0oapIU",
            "y": "95bxkCnMKoHvgbcPAIAcgzzu8scd81mXfM_IzuJFNfkUNkGYBFGvuEU1KPi5j1ob",
            "key_ops": [
                "verify"
            ],
            "ext": true,
            "kid": "cd520211e5661dbba2256f67f6d53f97",
            "alg": "ES384"
        },
        {
            "kty": "EC",
            "crv": "P-384",
            "d": "hQCNmfvZEUjOon8zLc0bULlmrDPFHrieFHRVZUGMuiQscx9IO7MT03TsaCPdPv0u",
            "x": "pyqburM9y8HPcFhNosDW6ngoVEJitqXi_HJgI5hYqX21PoFDwCbYirGy_o0oapIU",
            "y": "95bxkCnMKoHvgbcPAIAcgzzu8scd81mXfM_IzuJFNfkUNkGYBFGvuEU1KPi5j1ob",
            "key_ops": [
                "sign"
            ],
            "ext": true,
            "kid": "cd520211e5661dbba2256f67f6d53f97",
            "alg": "ES384"
        }
    ]
}
"""#

    /// RS384.private.json: a public key and its private twin, same kid.
    static let rs384PrivateJWKS = #"""
{
    "keys": [
        {
            "kty": "RSA",
            "alg": "RS384",
            "n": "wJq2RHIA-7RT6q4go7wjcbHdW7ck7Kz22A8wf-kN7Wi5CWvhFG2_Y7nQp1lDpb2IKMQr-Q4n_vgJ6d5rWPspJpSPY7iffUK4ipQCEbzID5DJ6fQMBZOfCTXyxkuMh3jYGKEF3Ziw2oxbM1H9j-eJAPtrj5stUG6kVoXowegdox-bSjWP0iI5PnkwUNzcekLMug4M3LRluEQgGR9O_BAML6-w3igZ_rZA_gunyrLAMbfmCVaceW5ohLp679kyM7U6W2gDK_NbkDKcINUakVmPeoG5h8RzgGzvGrySR0k0VDFiZv60Ua07DqHTeDGH9e4NV07AECae-oykIj5NDCs3pw",
            "e": "AQAB",
            "key_ops": [
                "verify"
            ],
            "ext": true,
            "kid": "eee9f17a3b598fd86417a980b591fbe6"
        },
        {
            "kty": "RSA",
            "alg": "RS384",
            "n": "wJq2RHIA-7RT6q4go7wjcbHdW7ck7Kz22A8wf-kN7Wi5CWvhFG2_Y7nQp1lDpb2IKMQr-Q4n_vgJ6d5rWPspJpSPY7iffUK4ipQCEbzID5DJ6fQMBZOfCTXyxkuMh3jYGKEF3Ziw2oxbM1H9j-eJAPtrj5stUG6kVoXowegdox-bSjWP0iI5PnkwUNzcekLMug4M3LRluEQgGR9O_BAML6-w3igZ_rZA_gunyrLAMbfmCVaceW5ohLp679kyM7U6W2gDK_NbkDKcINUakVmPeoG5h8RzgGzvGrySR0k0VDFiZv60Ua07DqHTeDGH9e4NV07AECae-oykIj5NDCs3pw",
            "e": "AQAB",
            "d": "O7k9v6eiSmq2gtUP5fXW_9BplaEK4CEaQhEjtuYrnWyVxCghmVYWvPPHkb0KTwCgkhOSlx4epN-BI3YGz4bCUeZLOF7thcgEtWQD6EAjwT_ifJtihvAppo-GAps2rmN4jtqPmRFZ9csEFLvd5pujThyoU9WIjaJhbzsC2-4AEq6WgCDsjdxJ9AXz379vUaoSFAk_ETMRnFSUP-dCJqi_yUrS5h2Tr6rosKP3I_93tt2p2wtOfIjaq7fYipXS7_daHh7hSehEcRHkHI3faaDKY0UwqJa4icHtbX8KgayP6NPUQ-Xv8GMIii3cksRqktDuODHgqGpfkOCii4loS0B-wQ",
            "p": "58yRMh3SBFkK0n9ulWDADANqXVGwozMHf9m5nh0sDFSy9v8dTCvTBbzP2wN4pP0cYhIrPYyeBm724lvp7FFzgIz7u2UUIU_Q2-x5VWPy97ZI-V5_eooC58y8DdNbi89D4TzsTJaraEhcqcFH2gI4R-RP01ViKDg2EOzYu2105xE",
            "q": "1LaQOiUsaGO7T7aIKgLxvLs7uEekqoSN3tl-ALZxO8RhUyRYjmtH51aKLq8bublqM3XoXBSA4TVm07qUBmWKfHCCz8QhorDFDVgVlEGUMcdmyBmoH5RaEMj4R19oG7C-emP3TFCfzjlnRELuP3v-HdEe6SxoADQwYzyAjduSYzc",
            "dp": "oIbQ_s4cBZrMnd5WbOil1yv-W0YZd8v9I5Nasp8tRBTcI6WlWnz3FQAfSmNrB4eqQlimzWc2gOoT28sfguMdhCcepjZn7HHkCIoJtRMUzmvUua2xxuERBgqJKWH4Aii1r6SLWLb3Wa7TTVRnOBlVdKQujAKTiZr0BmCf75zr2qE",
            "dq": "BJA-G-E8SKkLFbS2yx_xC7mAmH2A_N-HI6bK2z0OxNd7twrqk3OdwUrMACBlmeBudNgsufz-ntZEdHpmPpTjGbRYOhjdF95u-9BN9jZJ9Z9vhw912eeW3xFQskdLtnxeOcX3Qj3gj84PdxlwfxAr7XvVC--V85srBpX_tAtn4pU",
            "qi": "z24jzWhTRZ-x_zsH2wiSKmqg0wXOWO_BCnHA7lC6mMZCj-mQqY-PrZbrrii46ZoGxKWt12bnlHs5OCHtcwcuLrczXCyZPWImbG6Aqch7GVeChzBhdrnflUgt5Y1TmDLMrFmXUIZ2mSMbyN5xZZ4IwfoAq1fOLvXeQny4er2pyxo",
            "key_ops": [
                "sign"
            ],
            "ext": true,
            "kid": "eee9f17a3b598fd86417a980b591fbe6"
        }
    ]
}
"""#

    /// ES384.public.json.
    static let es384PublicJWKS = #"""
{
    "keys": [
        {
            "kty": "EC",
            "crv": "P-384",
            "x": "pyqburM9y8HPcFhNosDW6ngoVEJitqXi_HJgI5hYqX21PoFDwCbYirGy_o0oapIU",
            "y": "95bxkCnMKoHvgbcPAIAcgzzu8scd81mXfM_IzuJFNfkUNkGYBFGvuEU1KPi5j1ob",
            "key_ops": [
                "verify"
            ],
            "ext": true,
            "kid": "cd520211e5661dbba2256f67f6d53f97",
            "alg": "ES384"
        }
    ]
}
"""#

    /// The spec's RS384 assertion, signed with ``rs384PrivateJWKS``.
    static let rs384Assertion = "eyJhbGciOiJSUzM4NCIsImtpZCI6ImVlZTlmMTdhM2I1OThmZDg2NDE3YTk4MGI1OTFmYmU2IiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2JpbGktbW9uaXRvci5leGFtcGxlLmNvbSIsInN1YiI6Imh0dHBzOi8vYmlsaS1tb25pdG9yLmV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9hdXRob3JpemUuc21hcnRoZWFsdGhpdC5vcmcvdG9rZW4iLCJleHAiOjE0MjI1Njg4NjAsImp0aSI6InJhbmRvbS1ub24tcmV1c2FibGUtand0LWlkLTEyMyJ9.D5kAqNJwaftCqsRdVVQDq6dMBxuGFOF5svQJuXbcYp-oEyg5qOwK9ZE5cGLTHxqwfpUPNzRKgVdIGuhawAA-8g0s1nKQae8CuKs33hhKh4J34xSEwW3MYs1gwI4GHTtR_g3kYSX6QCi14Ed3GIAvYFgqRqt-gD7sewMUXL4SB8I8cXcDbCqVizm7uPVhjw6QaeKZygJJ_AVLhM4Xs9LTy4HAhdCHpN0FrNmCerUIYJvHDpcod7A0jDmxdoeW1KIBYlhdhQNwjtsTvT1ce4qacN_3KIv_fIzCKLIgDv9eWxkjAtxOmIm8aW5gX9xX7X0nbd0QglIyiic_bZVNNEh0kg"

    /// The spec's ES384 assertion, signed with ``es384PrivateJWKS``.
    static let es384Assertion = "eyJhbGciOiJFUzM4NCIsImtpZCI6ImNkNTIwMjExZTU2NjFkYmJhMjI1NmY2N2Y2ZDUzZjk3IiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2JpbGktbW9uaXRvci5leGFtcGxlLmNvbSIsInN1YiI6Imh0dHBzOi8vYmlsaS1tb25pdG9yLmV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9hdXRob3JpemUuc21hcnRoZWFsdGhpdC5vcmcvdG9rZW4iLCJleHAiOjE0MjI1Njg4NjAsImp0aSI6InJhbmRvbS1ub24tcmV1c2FibGUtand0LWlkLTEyMyJ9.ddl5N8dt5PYI_7syKg_dm1wj1LR3dYVztFlTODs6pU1vKH1Zv3d9NctbnAsZ4aZ1K7HE83_fA_hIAL0JsU1GoB7roLmrpj8zfygG9Q1ZBAmKNoR60pyONPZsGTihoR29"

    /// The assertions' claims: client id (iss and sub), token endpoint (aud) and exp.
    static let assertionClientID = "https://bili-monitor.example.com"
    static let assertionTokenEndpoint = "https://authorize.smarthealthit.org/token"
    static let assertionExpiry = Date(timeIntervalSince1970: 1_422_568_860)

    /// example-app-launch-public.md: the discovery response.
    static let publicAppConfiguration = #"""
{
  "authorization_endpoint": "https://smart.argo.run/v/r4/sim/eyJtIjoiMSIsImsiOiIxIiwiaSI6IjEiLCJqIjoiMSIsImIiOiI4N2EzMzlkMC04Y2FlLTQxOGUtODljNy04NjUxZTZhYWIzYzYifQ/auth/authorize",
  "token_endpoint": "https://smart.argo.run/v/r4/sim/eyJtIjoiMSIsImsiOiIxIiwiaSI6IjEiLCJqIjoiMSIsImIiOiI4N2EzMzlkMC04Y2FlLTQxOGUtODljNy04NjUxZTZhYWIzYzYifQ/auth/token",
  "introspection_endpoint": "https://smart.argo.run/v/r4/sim/eyJtIjoiMSIsImsiOiIxIiwiaSI6IjEiLCJqIjoiMSIsImIiOiI4N2EzMzlkMC04Y2FlLTQxOGUtODljNy04NjUxZTZhYWIzYzYifQ/auth/introspect",
  "code_challenge_methods_supported": [
    "S256"
  ],
  "grant_types_supported": [
    "authorization_code"
  ],
  "token_endpoint_auth_methods_supported": [
    "private_key_jwt",
    "client_secret_basic"
  ],
  "token_endpoint_auth_signing_alg_values_supported": [
    "RS384",
    "ES384"
  ],
  "scopes_supported": [
    "openid",
    "fhirUser",
    "launch",
    "launch/patient",
    "patient/*.cruds"
    "user/*.cruds",
    "offline_access"
  ],
  "response_types_supported": [
    "code"
  ],
  "capabilities": [
    "launch-ehr",
    "launch-standalone",
    "client-public",
    "client-confidential-symmetric",
    "client-confidential-asymmetric",
    "context-passthrough-banner",
    "context-passthrough-style",
    "context-ehr-patient",
    "context-ehr-encounter",
    "context-standalone-patient",
    "context-standalone-encounter",
    "permission-offline",
    "permission-patient",
    "permission-user",
    "permission-v2",
    "authorize-post"
  ]
}
"""#

    /// example-app-launch-public.md: the token response.
    static let publicAppTokenResponse = #"""
{
  "need_patient_banner": true,
  "smart_style_url": "https://smart.argo.run/smart-style.json",
  "patient": "87a339d0-8cae-418e-89c7-8651e6aab3c6",
  "token_type": "Bearer",
  "scope": "launch/patient patient/Observation.rs patient/Patient.rs",
  "expires_in": 3600,
  "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJuZWVkX3BhdGllbnRfYmFubmVyIjp0cnVlLCJzbWFydF9zdHlsZV91cmwiOiJodHRwczovL3NtYXJ0LmFyZ28ucnVuLy9zbWFydC1zdHlsZS5qc29uIiwicGF0aWVudCI6Ijg3YTMzOWQwLThjYWUtNDE4ZS04OWM3LTg2NTFlNmFhYjNjNiIsInRva2VuX3R5cGUiOiJiZWFyZXIiLCJzY29wZSI6ImxhdW5jaC9wYXRpZW50IHBhdGllbnQvT2JzZXJ2YXRpb24ucnMgcGF0aWVudC9QYXRpZW50LnJzIiwiY2xpZW50X2lkIjoiZGVtb19hcHBfd2hhdGV2ZXIiLCJleHBpcmVzX2luIjozNjAwLCJpYXQiOjE2MzM1MzIwMTQsImV4cCI6MTYzMzUzNTYxNH0.PzNw23IZGtBfgpBtbIczthV2hGwanG_eyvthVS8mrG4",
  "refresh_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjb250ZXh0Ijp7Im5lZWRfcGF0aWVudF9iYW5uZXIiOnRydWUsInNtYXJ0X3N0eWxlX3VybCI6Imh0dHBzOi8vc21hcnQuYXJnby5ydW4vL3NtYXJ0LXN0eWxlLmpzb24iLCJwYXRpZW50IjoiODdhMzM5ZDAtOGNhZS00MThlLTg5YzctODY1MWU2YWFiM2M2In0sImNsaWVudF9pZCI6ImRlbW9fYXBwX3doYXRldmVyIiwic2NvcGUiOiJsYXVuY2gvcGF0aWVudCBwYXRpZW50L09ic2VydmF0aW9uLnJzIHBhdGllbnQvUGF0aWVudC5ycyBvZmZsaW5lX2FjY2VzcyIsImlhdCI6MTYzMzUzMzg1OSwiZXhwIjoxNjY1MDY5ODU5fQ.Q41QwZCEQlZ16M7YwvYuVbUP03mRFJoqRxL8SS8_ImM"
}
"""#

    /// example-app-launch-public.md: the authorization request (its newlines removed).
    static let publicAppAuthorizeURL = "https://smart.argo.run/v/r4/sim/eyJtIjoiMSIsImsiOiIxIiwiaSI6IjEiLCJqIjoiMSIsImIiOiI4N2EzMzlkMC04Y2FlLTQxOGUtODljNy04NjUxZTZhYWIzYzYifQ/auth/authorize?response_type=code&client_id=demo_app_whatever&scope=launch%2Fpatient%20patient%2FObservation.rs%20patient%2FPatient.rs%20offline_access&redirect_uri=https%3A%2F%2Fsharp-lake-word.glitch.me%2Fgraph.html&aud=https%3A%2F%2Fsmart.argo.run%2Fv%2Fr4%2Fsim%2FeyJtIjoiMSIsImsiOiIxIiwiaSI6IjEiLCJqIjoiMSIsImIiOiI4N2EzMzlkMC04Y2FlLTQxOGUtODljNy04NjUxZTZhYWIzYzYifQ%2Ffhir&state=0hJc1S9O4oW54XuY&code_challenge=YPXe7B8ghKrj8PsT4L6ltupgI12NQJ5vblB07F4rGaw&code_challenge_method=S256"
    /// example-app-launch-public.md: the callback (its newlines removed).
    static let publicAppCallbackURL = "https://sharp-lake-word.glitch.me/graph.html?code=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjb250ZXh0Ijp7Im5lZWRfcGF0aWVudF9iYW5uZXIiOnRydWUsInNtYXJ0X3N0eWxlX3VybCI6Imh0dHBzOi8vc21hcnQuYXJnby5ydW4vL3NtYXJ0LXN0eWxlLmpzb24iLCJwYXRpZW50IjoiODdhMzM5ZDAtOGNhZS00MThlLTg5YzctODY1MWU2YWFiM2M2In0sImNsaWVudF9pZCI6ImRlbW9fYXBwX3doYXRldmVyIiwiY29kZV9jaGFsbGVuZ2VfbWV0aG9kIjoiUzI1NiIsImNvZGVfY2hhbGxlbmdlIjoiWVBYZTdCOGdoS3JqOFBzVDRMNmx0dXBnSTEyTlFKNXZibEIwN0Y0ckdhdyIsInNjb3BlIjoibGF1bmNoL3BhdGllbnQgcGF0aWVudC9PYnNlcnZhdGlvbi5ycyBwYXRpZW50L1BhdGllbnQucnMiLCJyZWRpcmVjdF91cmkiOiJodHRwczovL3NoYXJwLWxha2Utd29yZC5nbGl0Y2gubWUvZ3JhcGguaHRtbCIsImlhdCI6MTYzMzUzMjAxNCwiZXhwIjoxNjMzNTMyMzE0fQ.xilM68Bavtr9IpklYG-j96gTxAda9r4Z_boe2zv3A3E&state=0hJc1S9O4oW54XuY"
    /// example-app-launch-public.md: the PKCE verifier sent to the token endpoint.
    static let publicAppCodeVerifier = "o28xyrYY7-lGYfnKwRjHEZWlFIPlzVnFPYMWbH-g_BsNnQNem-IAg9fDh92X0KtvHCPO5_C-RJd2QhApKQ-2cRp-S_W3qmTidTEPkeWyniKQSF9Q_k10Q5wMc8fGzoyF"
}
