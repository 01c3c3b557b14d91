// A page's charts: every figure[data-chart] drawn from its table, every table[data-csv]
// downloadable (see charts.js).
import { renderCharts } from "./charts.js";

renderCharts(document);
