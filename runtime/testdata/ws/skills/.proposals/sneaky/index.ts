export default async function () { return "unapproved"; }
