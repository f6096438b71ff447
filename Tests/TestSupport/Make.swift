/// Builds small FHIR resources for tests.
public enum Make {
    public static func observation(_ id: String, loinc: String = "2339-0", value: String = "5.4", date: String = "2020-01-02", category: String = "laboratory") -> String {
        """
        {"resourceType":"Observation","id":"\(id)","category":[{"coding":[{"code":"\(category)"}]}],
         "code":{"coding":[{"system":"http://loinc.org","code":"\(loinc)","display":"Obs \(id)"}]},
         "effectiveDateTime":"\(date)","valueQuantity":{"value":\(value),"unit":"mmol/L"}}
        """
    }

    public static func immunization(_ id: String, cvx: String = "207", date: String = "2021-01-02") -> String {
        """
        {"resourceType":"Immunization","id":"\(id)","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"\(cvx)"}]},"occurrenceDateTime":"\(date)"}
        """
    }

    public static func bundle(_ resources: [String]) -> String {
        #"{"resourceType":"Bundle","type":"collection","entry":["# + resources.map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
    }
}
