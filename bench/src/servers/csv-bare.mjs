// Baseline for the event-log export: a bare loop writing the same CSV (the simulator's header and a
// representative row, `rows` times) to the socket, honouring back-pressure.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [headerPath, rowsText] = process.argv.slice(2);
const [header, row] = readFileSync(headerPath, 'utf8').split('\n');
const rows = Number(rowsText);
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/csv' });
  res.write(`${header}\r\n`);
  let i = 0;
  const line = `${row}\r\n`;
  const pump = () => {
    while (i < rows) {
      let chunk = '';
      for (let k = 0; k < 256 && i < rows; k++, i++) chunk += line;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
