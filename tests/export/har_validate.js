// Validate HAR files with har-validator (the HAR 1.2 JSON schemas of har-schema, as the `request`
// library checked HAR input): prints "valid" or the errors, exits 1 on the first invalid file.
const fs = require('fs');
const validate = require('har-validator');

(async () => {
  for (const path of process.argv.slice(2)) {
    try {
      await validate.har(JSON.parse(fs.readFileSync(path, 'utf8')));
      console.log(`valid ${path}`);
    } catch (error) {
      console.log(`invalid ${path}: ${JSON.stringify(error.errors || error.message)}`);
      process.exit(1);
    }
  }
})();
