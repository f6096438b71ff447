// Codes of the eHealth Network value sets for the EU DCC (ehn-dcc-development/ehn-dcc-valuesets,
// release 2.12.0 = value sets document v1.15), with every code any earlier release listed, so that
// certificates issued under older value sets do not warn.

extension DCCValueSets {
    /// `tg`: disease-agent-targeted (SNOMED CT), valueSetDate 2021-04-27.
    static let diseasesTargeted: Set<String> = [
        "840539006",  // COVID-19
    ]

    /// `vp`: sct-vaccines-covid-19, valueSetDate 2023-01-25; J07BX03 (ATC) deprecated there but
    /// used by early certificates.
    static let vaccineProphylaxis: Set<String> = [
        "1119305005",  // SARS-CoV-2 antigen vaccine
        "1119349007",  // SARS-CoV-2 mRNA vaccine
        "1157024006",  // Inactivated whole SARS-CoV-2 antigen vaccine
        "1162643001",  // SARS-CoV-2 recombinant spike protein antigen vaccine
        "1187593009",  // SARS-CoV-2 DNA plasmid encoding spike protein vaccine
        "28531000087107",  // COVID-19 vaccine
        "29061000087103",  // COVID-19 non-replicating viral vector vaccine
        "30141000087107",  // SARS-CoV-2 virus-like particle antigen vaccine
        "J07BX03",  // covid-19 vaccines
    ]

    /// `mp`: vaccines-covid-19-names, valueSetDate 2022-11-30 (deprecated codes such as
    /// VLA2001, Vidprevtyn, NVX-CoV2373 kept).
    static let vaccineProducts: Set<String> = [
        "AZD2816",  // AZD2816
        "Abdala",  // Abdala (CIGB-66)
        "BBIBP-CorV",  // BBIBP-CorV
        "CVnCoV",  // CVnCoV
        "Convidecia",  // Convidecia
        "CoronaVac",  // CoronaVac
        "Covaxin",  // Covaxin (also known as BBV152 A, B, C)
        "CoviVac",  // CoviVac
        "Covid-19-adsorvida-inativada",  // Vacina adsorvida covid-19 (inativada)
        "Covid-19-recombinant",  // Covid-19 (recombinant)
        "Covifenz",  // Covifenz
        "Covishield",  // Covishield
        "Covovax",  // Covovax
        "EU/1/20/1507",  // COVID-19 Vaccine Moderna
        "EU/1/20/1525",  // COVID-19 Vaccine Janssen
        "EU/1/20/1528",  // Comirnaty
        "EU/1/21/1529",  // Vaxzevria
        "EU/1/21/1580",  // VidPrevtyn Beta
        "EU/1/21/1618",  // Nuvaxovid
        "EU/1/21/1624",  // COVID-19 Vaccine Valneva
        "EU/1/22/1709",  // Bimervax
        "EpiVacCorona",  // EpiVacCorona
        "EpiVacCorona-N",  // EpiVacCorona-N
        "Hayat-Vax",  // Hayat-Vax
        "Inactivated-SARS-CoV-2-Vero-Cell",  // Inactivated SARS-CoV-2 (Vero Cell)
        "MVC-COV1901",  // MVC COVID-19 vaccine
        "NVSI-06-08",  // NVSI-06-08
        "NVX-CoV2373",  // NVX-CoV2373 (deprecated)
        "R-COVI",  // R-COVI
        "SCTV01C",  // SCTV01C
        "Soberana-02",  // Soberana 02 FINLAY- FR-2 anti SARS-CoV-2 (COVID-19)
        "Soberana-Plus",  // Soberana Plus
        "Sputnik-Light",  // Sputnik Light
        "Sputnik-M",  // Sputnik M
        "Sputnik-V",  // Sputnik-V
        "VLA2001",  // VLA2001 (deprecated)
        "Vidprevtyn",  // Vidprevtyn (deprecated)
        "WIBP-CorV",  // WIBP-CorV
        "YS-SC2-010",  // YS-SC2-010
    ]

    /// `ma` of a vaccination: vaccines-covid-19-auth-holders, valueSetDate 2022-01-26, plus codes
    /// earlier releases listed.
    static let vaccineAuthorisationHolders: Set<String> = [
        "Bharat-Biotech",  // Bharat Biotech
        "CIGB",  // Centro de Ingeniería Genética y Biotecnología
        "Chumakov-Federal-Scientific-Center",  // Chumakov Federal Scientific Center for Research and Development of Immune-and-Biological Products
        "Finlay-Institute",  // Finlay Institute of Vaccines
        "Fiocruz",  // Fiocruz
        "Gamaleya-Research-Institute",  // Gamaleya Research Institute
        "IFV",  // Instituto Finlay de Vacunas
        "Instituto-Butantan",  // Instituto Butantan
        "NVSI",  // National Vaccine and Serum Institute, China
        "ORG-100000788",  // Sanofi Pasteur
        "ORG-100001417",  // Janssen-Cilag International
        "ORG-100001699",  // AstraZeneca AB
        "ORG-100001981",  // Serum Institute Of India Private Limited
        "ORG-100006270",  // Curevac AG
        "ORG-100007893",  // R-Pharm CJSC
        "ORG-100008549",  // Medicago Inc.
        "ORG-100010771",  // Sinopharm Weiqida Europe Pharmaceutical s.r.o. - Prague location
        "ORG-100013793",  // CanSino Biologics
        "ORG-100020693",  // China Sinopharm International Corp. - Beijing location
        "ORG-100023050",  // Gulf Pharmaceutical Industries
        "ORG-100024420",  // Sinopharm Zhijun (Shenzhen) Pharmaceutical Co. Ltd. - Shenzhen location
        "ORG-100026614",  // Sinocelltech Ltd.
        "ORG-100030215",  // Biontech Manufacturing GmbH
        "ORG-100031184",  // Moderna Biotech Spain S.L.
        "ORG-100032020",  // Novavax CZ AS
        "ORG-100033914",  // Medigen Vaccine Biologics Corporation
        "ORG-100036422",  // Valneva France
        "ORG-100036914",  // Hipra Human Health S.L.
        "Sinopharm-WIBP",  // Sinopharm - Wuhan Institute of Biological Products
        "Sinovac-Biotech",  // Sinovac Biotech
        "Vector-Institute",  // Vector Institute
        "Yisheng-Biopharma",  // Yisheng Biopharma
    ]

    /// `tt`: covid-19-lab-test-type (LOINC), valueSetDate 2021-04-27.
    static let testTypes: Set<String> = [
        "LP217198-3",  // Rapid immunoassay
        "LP6464-4",  // Nucleic acid amplification with probe detection
    ]

    /// `tr`: covid-19-lab-result (SNOMED CT), valueSetDate 2021-04-27.
    static let testResults: Set<String> = [
        "260373001",  // Detected
        "260415000",  // Not detected
    ]

    /// `co`: country-2-codes (ISO 3166-1 alpha-2, with XK for Kosovo), valueSetDate 2019-11-01.
    static let countries: Set<String> = [
        "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX",
        "AZ", "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ",
        "BR", "BS", "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK",
        "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM",
        "DO", "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR",
        "GA", "GB", "GD", "GE", "GF", "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS",
        "GT", "GU", "GW", "GY", "HK", "HM", "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN",
        "IO", "IQ", "IR", "IS", "IT", "JE", "JM", "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN",
        "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV",
        "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK", "ML", "MM", "MN", "MO", "MP", "MQ",
        "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA", "NC", "NE", "NF", "NG", "NI",
        "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG", "PH", "PK", "PL", "PM",
        "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW", "SA", "SB", "SC",
        "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV",
        "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO", "TR",
        "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
        "VN", "VU", "WF", "WS", "XK", "YE", "YT", "ZA", "ZM", "ZW",
    ]
}
