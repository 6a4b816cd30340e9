package demo

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// recordStore is one salesforce server's mutable copy of the CRM. It is safe
// for concurrent use; returned records are copies.
type recordStore struct {
	mu      sync.RWMutex
	records map[string][]record          // object name → records in creation order
	byID    map[string]map[string]record // object name → id → the same maps as in records
	objects map[string][]string          // record id → the objects that have it, sorted
	// custom holds, per object, the custom fields (Name__c) that updates
	// added beyond the object's standard fields, in order of addition.
	custom map[string][]string
}

func newRecordStore(crm *crmData) *recordStore {
	s := &recordStore{
		records: map[string][]record{},
		byID:    map[string]map[string]record{},
		objects: map[string][]string{},
		custom:  map[string][]string{},
	}
	for _, obj := range sobjects {
		s.byID[obj.Name] = map[string]record{}
		for _, r := range crm.records[obj.Name] {
			c := maps.Clone(r)
			s.records[obj.Name] = append(s.records[obj.Name], c)
			id := c["Id"].(string)
			s.byID[obj.Name][id] = c
			s.objects[id] = append(s.objects[id], obj.Name) // sobjects is sorted
		}
	}
	return s
}

// lookupObject resolves an object type name case-insensitively.
func lookupObject(name string) (sobject, error) {
	for _, o := range sobjects {
		if strings.EqualFold(o.Name, strings.TrimSpace(name)) {
			return o, nil
		}
	}
	names := make([]string, len(sobjects))
	for i, o := range sobjects {
		names[i] = o.Name
	}
	return sobject{}, fmt.Errorf("unknown object type %q; supported objects: %s", name, strings.Join(names, ", "))
}

// fieldsOf lists the fields of obj, standard first, then custom fields added
// by updates. Callers hold s.mu.
func (s *recordStore) fieldsOf(obj sobject) []string {
	return append(slices.Clone(obj.Fields), s.custom[obj.Name]...)
}

// resolveField maps a field name to its canonical spelling on obj.
// Callers hold s.mu.
func (s *recordStore) resolveField(obj sobject, name string) (string, error) {
	fields := s.fieldsOf(obj)
	for _, f := range fields {
		if strings.EqualFold(f, name) {
			return f, nil
		}
	}
	return "", fmt.Errorf("no field %q on %s; its fields are %s", name, obj.Name, strings.Join(fields, ", "))
}

// find returns the stored record obj/id. Callers hold s.mu.
func (s *recordStore) find(obj sobject, id string) (record, error) {
	if rec, ok := s.byID[obj.Name][id]; ok {
		return rec, nil
	}
	if others := s.objects[id]; len(others) > 0 {
		return nil, fmt.Errorf("record %q is a %s, not a %s; call getRecord with objectType %q", id, strings.Join(others, " and a "), obj.Name, others[0])
	}
	return nil, fmt.Errorf("no %s with id %q; find ids with query, for example SELECT Id, Name FROM %s LIMIT 10", obj.Name, id, obj.Name)
}

// get returns a copy of the record with every field of its object, null
// where unset.
func (s *recordStore) get(objectType, id string) (record, error) {
	obj, err := lookupObject(objectType)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec, err := s.find(obj, id)
	if err != nil {
		return nil, err
	}
	out := record{}
	for _, f := range s.fieldsOf(obj) {
		out[f] = rec[f]
	}
	return out, nil
}

// update sets fields of obj/id. Unknown standard fields are rejected; new
// custom fields (ending in __c) are accepted and become queryable. On Leads
// and Contacts, Name follows FirstName and LastName.
func (s *recordStore) update(objectType, id string, data map[string]any) error {
	obj, err := lookupObject(objectType)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return fmt.Errorf(`data is empty; pass an object of field names to new values, for example {"Notes__c": "..."}`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.find(obj, id)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(data)) // deterministic errors and custom-field order
	changes := make(map[string]any, len(data))
	var added []string
	for _, name := range names {
		field, err := s.resolveField(obj, name)
		switch {
		case err != nil && strings.HasSuffix(name, "__c"):
			field = name
			if i := slices.IndexFunc(added, func(a string) bool { return strings.EqualFold(a, name) }); i >= 0 {
				return fmt.Errorf("data sets the new field %s twice (%s and %s); field names ignore case", name, added[i], name)
			}
			added = append(added, name)
		case err != nil:
			return fmt.Errorf("%w; custom fields ending in __c can be added", err)
		case field == "Id":
			return fmt.Errorf("the Id field cannot be changed")
		case field == "Name" && hasComputedName(obj):
			// Name is FirstName + " " + LastName: setting it sets both
			// (the article's PII example writes Name: row.name to Leads).
			if hasAnyFold(data, "FirstName", "LastName") {
				return fmt.Errorf("data sets Name and FirstName or LastName; the Name of a %s is FirstName LastName, so set either Name or the two parts", obj.Name)
			}
			v, err := fieldValue(data[name])
			if err != nil {
				return fmt.Errorf("field Name: %w", err)
			}
			full, ok := v.(string)
			if !ok || strings.TrimSpace(full) == "" {
				return fmt.Errorf("the Name of a %s must be a non-empty string (it sets FirstName and LastName)", obj.Name)
			}
			changes["FirstName"], changes["LastName"] = splitName(full)
			continue
		}
		v, err := fieldValue(data[name])
		if err != nil {
			return fmt.Errorf("field %s: %w", field, err)
		}
		changes[field] = v
	}
	maps.Copy(rec, changes)
	s.custom[obj.Name] = append(s.custom[obj.Name], added...)
	_, first := changes["FirstName"]
	_, last := changes["LastName"]
	if hasComputedName(obj) && (first || last) {
		rec["Name"] = strings.TrimSpace(fmt.Sprint(orEmpty(rec["FirstName"])) + " " + fmt.Sprint(orEmpty(rec["LastName"])))
	}
	return nil
}

// splitName splits a full name at its last space: "Maya J. Okafor" is
// FirstName "Maya J." and LastName "Okafor"; a single word is a LastName.
func splitName(full string) (first, last any) {
	full = strings.Join(strings.Fields(full), " ")
	i := strings.LastIndexByte(full, ' ')
	if i < 0 {
		return nil, full
	}
	return full[:i], full[i+1:]
}

// hasAnyFold reports whether data has one of the keys, ignoring case.
func hasAnyFold(data map[string]any, keys ...string) bool {
	for k := range data {
		for _, want := range keys {
			if strings.EqualFold(k, want) {
				return true
			}
		}
	}
	return false
}

// hasComputedName reports whether obj's Name is FirstName + " " + LastName.
func hasComputedName(obj sobject) bool { return obj.Name == "Lead" || obj.Name == "Contact" }

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// fieldValue accepts the scalar values a Salesforce field can hold.
func fieldValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, float64, bool:
		return x, nil
	case int:
		return float64(x), nil
	default:
		return nil, fmt.Errorf("value must be a string, number, boolean or null, not %T", v)
	}
}

// query runs a parsed query: it resolves names, filters, orders (stably,
// ties keep creation order), limits and projects onto Id and the selected
// fields.
func (s *recordStore) query(q *soqlQuery) ([]record, error) {
	obj, err := lookupObject(q.Object)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()

	fields := []string{"Id"}
	for _, f := range q.Fields {
		canon, err := s.resolveField(obj, f)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(fields, canon) {
			fields = append(fields, canon)
		}
	}
	where := make([]soqlCondition, len(q.Where))
	for i, c := range q.Where {
		canon, err := s.resolveField(obj, c.Field)
		if err != nil {
			return nil, err
		}
		where[i] = soqlCondition{Field: canon, Op: c.Op, Value: c.Value}
	}

	var hits []record
	for _, rec := range s.records[obj.Name] {
		if matches(rec, where) {
			hits = append(hits, rec)
		}
	}
	if q.OrderBy != "" {
		key, err := s.resolveField(obj, q.OrderBy)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(hits, func(i, j int) bool {
			c := orderValues(hits[i][key], hits[j][key])
			if q.Desc {
				return c > 0
			}
			return c < 0
		})
	}
	if q.Limit >= 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}

	out := make([]record, len(hits))
	for i, rec := range hits {
		row := make(record, len(fields))
		for _, f := range fields {
			row[f] = rec[f]
		}
		out[i] = row
	}
	return out, nil
}
