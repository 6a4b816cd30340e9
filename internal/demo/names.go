package demo

// Word lists for the synthetic data. Every person and company is fictional;
// email domains use the reserved ".example" top-level domain and phone numbers
// the 555-01xx range reserved for fiction, so nothing here reaches a real
// mailbox or phone.

var firstNames = []string{
	"Aaron", "Adaeze", "Alejandro", "Amara", "Anders", "Anika", "Arjun", "Beatriz",
	"Bogdan", "Caleb", "Camila", "Chen", "Dalia", "Darius", "Elena", "Emeka",
	"Farah", "Felix", "Gabriel", "Grace", "Hamid", "Hana", "Ingrid", "Isaac",
	"Jamal", "Jana", "Joaquin", "Kai", "Kavya", "Keiko", "Lars", "Leila",
	"Liam", "Lucia", "Malik", "Mei", "Mateo", "Nadia", "Nikhil", "Noor",
	"Olivia", "Omar", "Paolo", "Rafael", "Rania", "Renata", "Rohan", "Ruth",
	"Samir", "Sanna", "Sebastian", "Sienna", "Tariq", "Tessa", "Theo", "Uma",
	"Valentina", "Victor", "Wen", "Xavier", "Yara", "Yusuf", "Zara", "Zoltan",
}

var lastNames = []string{
	"Abernathy", "Adeyemi", "Alvarado", "Andersson", "Bakshi", "Barros", "Brennan", "Castellanos",
	"Chowdhury", "Costa", "Dahl", "Delacroix", "Dimitrov", "Eze", "Fairbanks", "Fischer",
	"Gallagher", "Guerrero", "Haddad", "Halvorsen", "Ibarra", "Iwata", "Jankowski", "Jovanovic",
	"Kaur", "Kowalski", "Lindqvist", "Lombardi", "Mahlangu", "Marchetti", "Mwangi", "Nakamura",
	"Nguyen", "Novak", "Obi", "Okonkwo", "Oliveira", "Park", "Petrov", "Quintero",
	"Rahman", "Reyes", "Rossi", "Sandoval", "Schneider", "Sato", "Shapiro", "Singh",
	"Sorensen", "Takahashi", "Tan", "Thorne", "Underwood", "Valdez", "Varga", "Wallace",
	"Whitfield", "Wojcik", "Xu", "Yamamoto", "Yilmaz", "Zamora", "Zhang", "Zielinski",
}

// company is a fictional organisation that appears as an Account (the first
// accountCount entries), as the employer of Leads and in the transcript.
type company struct {
	Name     string
	Domain   string
	Industry string
	City     string
	AreaCode string
}

var companies = []company{
	{"Harborview Analytics", "harborview.example", "Technology", "Seattle", "206"},
	{"Northgate Logistics", "northgate.example", "Transportation", "Chicago", "312"},
	{"Bluefin Foods", "bluefin.example", "Food and Beverage", "Boston", "617"},
	{"Copperline Energy", "copperline.example", "Energy", "Denver", "303"},
	{"Meridian Health Partners", "meridianhealth.example", "Healthcare", "Atlanta", "404"},
	{"Tallgrass Outfitters", "tallgrass.example", "Retail", "Omaha", "402"},
	{"Silverpine Software", "silverpine.example", "Technology", "Portland", "503"},
	{"Redwood Mutual", "redwoodmutual.example", "Insurance", "Sacramento", "916"},
	{"Kestrel Aerospace", "kestrel.example", "Manufacturing", "Wichita", "316"},
	{"Lumen Learning Co", "lumenlearning.example", "Education", "Austin", "512"},
	{"Ironbridge Construction", "ironbridge.example", "Construction", "Pittsburgh", "412"},
	{"Saltmarsh Media", "saltmarsh.example", "Media", "New York", "212"},
	{"Quarry Hill Bank", "quarryhill.example", "Banking", "Charlotte", "704"},
	{"Brightwater Utilities", "brightwater.example", "Utilities", "Phoenix", "602"},
	{"Oakhurst Hotels", "oakhurst.example", "Hospitality", "Orlando", "407"},
	{"Fernleaf Biotech", "fernleaf.example", "Biotechnology", "San Diego", "619"},
	{"Granite Peak Telecom", "granitepeak.example", "Telecommunications", "Salt Lake City", "801"},
	{"Westwind Apparel", "westwind.example", "Apparel", "Los Angeles", "213"},
	{"Cobalt Freight", "cobaltfreight.example", "Transportation", "Memphis", "901"},
	{"Maplestone Realty", "maplestone.example", "Real Estate", "Minneapolis", "612"},
	{"Sunridge Farms", "sunridge.example", "Agriculture", "Fresno", "559"},
	{"Vantage Point Legal", "vantagelegal.example", "Legal", "Washington", "202"},
	{"Ember Robotics", "emberrobotics.example", "Manufacturing", "Detroit", "313"},
	{"Clearbrook Pharmacy", "clearbrook.example", "Healthcare", "Columbus", "614"},
	{"Driftwood Games", "driftwood.example", "Entertainment", "San Francisco", "415"},
	{"Highline Fitness", "highline.example", "Consumer Services", "Miami", "305"},
	{"Pinecrest Schools", "pinecrest.example", "Education", "Raleigh", "919"},
	{"Riverbend Credit Union", "riverbend.example", "Banking", "Louisville", "502"},
	{"Starling Marine", "starlingmarine.example", "Transportation", "Norfolk", "757"},
	{"Thistle Cosmetics", "thistle.example", "Retail", "Nashville", "615"},
	{"Union Square Dental", "unionsquaredental.example", "Healthcare", "Philadelphia", "215"},
	{"Wildflower Events", "wildflower.example", "Hospitality", "Santa Fe", "505"},
	{"Alderbrook Insurance", "alderbrook.example", "Insurance", "Hartford", "860"},
	{"Basalt Mining", "basalt.example", "Mining", "Reno", "775"},
	{"Cinder Coffee Roasters", "cinder.example", "Food and Beverage", "Seattle", "206"},
	{"Dovetail Furniture", "dovetail.example", "Manufacturing", "Grand Rapids", "616"},
	{"Evergreen Senior Living", "evergreensl.example", "Healthcare", "Spokane", "509"},
	{"Foxglove Publishing", "foxglove.example", "Media", "Boston", "617"},
	{"Glacier Water Co", "glacierwater.example", "Utilities", "Anchorage", "907"},
	{"Horizon Charter Air", "horizonair.example", "Transportation", "Honolulu", "808"},
	{"Indigo Payments", "indigopay.example", "Financial Services", "New York", "646"},
	{"Juniper Vet Clinics", "junipervet.example", "Healthcare", "Boise", "208"},
	{"Keystone Steel", "keystonesteel.example", "Manufacturing", "Cleveland", "216"},
	{"Larkspur Design", "larkspur.example", "Professional Services", "Chicago", "773"},
	{"Mosaic Travel", "mosaictravel.example", "Travel", "Las Vegas", "702"},
	{"Nimbus Cloud Hosting", "nimbus.example", "Technology", "Dallas", "214"},
	{"Orchard Grocers", "orchard.example", "Retail", "Milwaukee", "414"},
	{"Prairie Wind Power", "prairiewind.example", "Energy", "Des Moines", "515"},
}

var jobTitles = []string{
	"Director of Operations", "VP of Finance", "Head of IT", "Procurement Manager",
	"Chief Technology Officer", "Operations Analyst", "Data Platform Lead", "Controller",
	"Head of Customer Experience", "IT Manager", "VP of Sales", "Supply Chain Manager",
	"Chief Operating Officer", "Business Systems Analyst", "Director of Analytics",
}

var leadStatuses = []string{"Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted"}

var leadSources = []string{"Web", "Phone Inquiry", "Partner Referral", "Trade Show", "Webinar", "Purchased List"}

var opportunityStages = []string{
	"Prospecting", "Qualification", "Needs Analysis", "Proposal/Price Quote",
	"Negotiation/Review", "Closed Won", "Closed Lost",
}

// product is a line item sold by the fictional seller, Brightside Data.
// Prices are in cents: money is computed in integers so that amounts are
// identical on every architecture.
type product struct {
	Name           string
	UnitPriceCents int
}

var products = []product{
	{"Analytics Seat", 4900},
	{"Data Connector", 19900},
	{"Dashboard Pack", 34900},
	{"Support Plan", 120000},
	{"Onboarding Package", 250000},
	{"Storage Add-on (1 TB)", 8900},
	{"API Access Tier", 59900},
	{"Training Workshop", 180000},
}
