package demo

import "sync"

// document is a Google Doc of the google-drive demo.
type document struct {
	Title   string
	Content string
}

// dataset is every piece of synthetic data, built once per process on first
// use and never modified afterwards: servers that mutate state (salesforce)
// copy what they change.
type dataset struct {
	crm       *crmData
	sheets    map[string]*sheet    // by id
	documents map[string]*document // by id
}

var (
	sharedOnce sync.Once
	shared     *dataset
)

// sharedData returns the process-wide dataset, building it on first use.
// Building takes tens of milliseconds, so it is not repeated per call.
func sharedData() *dataset {
	sharedOnce.Do(func() { shared = buildDataset() })
	return shared
}

func buildDataset() *dataset {
	crm := buildCRM()
	d := &dataset{
		crm:       crm,
		sheets:    map[string]*sheet{},
		documents: map[string]*document{},
	}
	for _, s := range []*sheet{buildOrders(crm), buildTargets()} {
		d.sheets[s.ID] = s
	}
	transcript, discussed := buildTranscript(crm)
	addSalesMeetings(crm, discussed)
	d.documents["abc123"] = &document{Title: transcriptTitle, Content: transcript}
	for _, f := range driveFiles {
		if content, ok := smallDocuments[f.ID]; ok && f.MimeType == mimeDoc {
			d.documents[f.ID] = &document{Title: f.Name, Content: content}
		}
	}
	return d
}
