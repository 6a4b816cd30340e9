// Article snippet 4, the privacy-preserving flow, verbatim: every order's
// contact details go from the sheet into Salesforce without passing through
// the model (10,000 rows, 10,000 calls).
import * as gdrive from './servers/google-drive';
import * as salesforce from './servers/salesforce';

const sheet = await gdrive.getSheet({ sheetId: 'abc123' });
for (const row of sheet.rows) {
  await salesforce.updateRecord({
    objectType: 'Lead',
    recordId: row.salesforceId,
    data: { 
      Email: row.email,
      Phone: row.phone,
      Name: row.name
    }
  });
}
console.log(`Updated ${sheet.rows.length} leads`);
