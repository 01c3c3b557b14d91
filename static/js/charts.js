// Charts drawn from the data table beside them, with plotly.js as the app serves it
// (vendor/plotly/plotly.min.js, loaded by templates/_charts.html before this module).
//
// The table is the source of truth: the server renders it, the chart only shows it.
//
//   <figure class="chart" data-chart="bar|heatmap|box|line" data-y-format=".0%">
//     <figcaption>What it shows</figcaption>
//     <div class="chart-plot"></div>          (made when missing)
//     <table data-csv="root-cause.csv"> ... </table>
//   </figure>
//
// In the table:
// - the first cell of each body row (th or td) names the row;
// - bar, heatmap, line: header cells marked data-series are the numbers drawn, one bar series,
//   heatmap column or line each, named by the header's text;
// - box: header cells marked data-stat="low|q1|median|q3|high|mean" give each row's box (low
//   and high are the whiskers' ends);
// - line: a cell with data-low and data-high draws whiskers from low to high around its point
//   (an interval; none where they are "");
// - a cell's number is its data-value ("" for none), else its text; a row with no cell in a
//   column (a "nothing yet" row spanning the table) has no number there; on bars and heatmap
//   cells the chart writes the cell's data-label, else its text.
// On the figure: data-y-format (a d3 format for the value axis, e.g. ".0%"), data-x-title,
// data-y-title; on a heatmap data-z-min and data-z-max fix its colour range.
//
// A chart whose table has no number to draw says so in its place; so does a page where the
// chart library did not load.
//
// renderCharts(root) draws every figure[data-chart] under root and puts a "Download CSV" link
// under every table[data-csv] (charted or not). drawChart(figure) draws one figure;
// csvText(table) is a table as CSV (RFC 4180), data-values in place of the shown text.
//
// Readable without colour: bars and heatmap cells carry their values, bar series differ in
// fill pattern, lines in dash and marker symbol, boxes stand apart on a named axis with their
// median written beside them, and every chart has its table.

// Okabe and Ito's palette: told apart by people with any common colour-vision deficiency.
const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000"];
const PATTERNS = ["", "/", "x", ".", "\\", "+", "-"];
const DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"];
const SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross"];
const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"] };

function cycle(list, index) {
  return list[index % list.length];
}

function cellNumber(cell) {
  if (!cell) return null;
  const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
  if (raw === "") return null;
  const number = Number(raw);
  return Number.isFinite(number) ? number : null;
}

function boundNumber(cell, which) {
  if (!cell || cell.dataset[which] === undefined || cell.dataset[which] === "") return null;
  const number = Number(cell.dataset[which]);
  return Number.isFinite(number) ? number : null;
}

// Whiskers for a line's points: plotly's asymmetric error bars, from each cell's interval.
function whiskers(series, colour) {
  if (!series.lows.some((low) => low !== null)) return undefined;
  const reach = (bound, value, sign) => (bound === null || value === null ? 0 : sign * (bound - value));
  return {
    type: "data",
    symmetric: false,
    array: series.highs.map((high, row) => reach(high, series.values[row], 1)),
    arrayminus: series.lows.map((low, row) => reach(low, series.values[row], -1)),
    color: colour,
    thickness: 1.5,
    width: 4,
  };
}

function cellLabel(cell) {
  if (!cell) return "";
  return cell.dataset.label !== undefined ? cell.dataset.label : cell.textContent.trim();
}

function headerCells(table) {
  const rows = table.tHead ? table.tHead.rows : [];
  return rows.length ? Array.from(rows[rows.length - 1].cells) : [];
}

function bodyRows(table) {
  return Array.from(table.tBodies).flatMap((body) => Array.from(body.rows));
}

// The marked columns: their index, name (header text) and the header cell itself.
function markedColumns(table, attribute) {
  return headerCells(table)
    .map((cell, index) => ({ cell: cell, index: index, name: cell.textContent.trim() }))
    .filter((column) => column.cell.hasAttribute(attribute));
}

function readSeries(table) {
  const rows = bodyRows(table);
  return {
    labels: rows.map((row) => row.cells[0].textContent.trim()),
    series: markedColumns(table, "data-series").map((column) => ({
      name: column.name,
      values: rows.map((row) => cellNumber(row.cells[column.index])),
      texts: rows.map((row) => cellLabel(row.cells[column.index])),
      lows: rows.map((row) => boundNumber(row.cells[column.index], "low")),
      highs: rows.map((row) => boundNumber(row.cells[column.index], "high")),
    })),
  };
}

// Whether any series has a number to draw.
function hasValues(data) {
  return data.series.some((series) => series.values.some((value) => value !== null));
}

function baseLayout(extra) {
  const layout = {
    font: { family: "system-ui, sans-serif", size: 12, color: "#1d2330" },
    margin: { t: 24, r: 24, b: 48, l: 24 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "#fff",
  };
  return Object.assign(layout, extra);
}

function axisTitle(figure, which) {
  const title = figure.dataset[which + "Title"];
  return title ? { text: title } : undefined;
}

function barChart(figure, table) {
  const data = readSeries(table);
  if (!hasValues(data)) return null;
  const traces = data.series.map((series, index) => ({
    type: "bar",
    orientation: "h",
    name: series.name,
    y: data.labels,
    x: series.values,
    text: series.texts,
    textposition: "outside",
    cliponaxis: false,
    marker: {
      color: cycle(COLOURS, index),
      line: { color: "#1d2330", width: 1 },
      pattern: { shape: cycle(PATTERNS, index), fgcolor: "#fff" },
    },
    hovertemplate: "%{y}: %{text}<extra>" + series.name + "</extra>",
  }));
  const rows = data.labels.length * Math.max(1, data.series.length);
  return {
    traces: traces,
    layout: baseLayout({
      barmode: "group",
      height: Math.max(200, 64 + 26 * rows),
      showlegend: data.series.length > 1,
      yaxis: { autorange: "reversed", automargin: true, title: axisTitle(figure, "y") },
      xaxis: { tickformat: figure.dataset.yFormat, title: axisTitle(figure, "x"), automargin: true },
      margin: { t: 24, r: 72, b: 48, l: 24 },
    }),
  };
}

// A fixed colour range (data-z-min and data-z-max on the figure, e.g. 0 to 1 for kappas), so
// a colour means the same value on every chart; without them it runs over the data.
function colourRange(figure) {
  const low = Number(figure.dataset.zMin);
  const high = Number(figure.dataset.zMax);
  if (figure.dataset.zMin === undefined || figure.dataset.zMax === undefined) return {};
  if (!Number.isFinite(low) || !Number.isFinite(high)) return {};
  return { zauto: false, zmin: low, zmax: high };
}

function heatmapChart(figure, table) {
  const data = readSeries(table);
  if (!hasValues(data)) return null;
  const columns = data.series.map((series) => series.name);
  return {
    traces: [
      {
        type: "heatmap",
        x: columns,
        y: data.labels,
        z: data.labels.map((_, row) => data.series.map((series) => series.values[row])),
        text: data.labels.map((_, row) => data.series.map((series) => series.texts[row])),
        texttemplate: "%{text}",
        // Light to dark: more is darker, and the count is written in every cell anyway.
        colorscale: [
          [0, "#f7fbff"],
          [0.5, "#6baed6"],
          [1, "#08306b"],
        ],
        xgap: 2,
        ygap: 2,
        hovertemplate: "%{y} / %{x}: %{text}<extra></extra>",
        colorbar: { tickformat: figure.dataset.yFormat, thickness: 12 },
        ...colourRange(figure),
      },
    ],
    layout: baseLayout({
      height: Math.max(220, 110 + 34 * data.labels.length),
      yaxis: { autorange: "reversed", automargin: true, title: axisTitle(figure, "y") },
      xaxis: { side: "top", automargin: true, title: axisTitle(figure, "x") },
    }),
  };
}

function boxChart(figure, table) {
  const columns = {};
  markedColumns(table, "data-stat").forEach((column) => {
    columns[column.cell.dataset.stat] = column.index;
  });
  const stat = (row, name) => (name in columns ? cellNumber(row.cells[columns[name]]) : null);
  const boxes = bodyRows(table)
    .map((row) => ({
      name: row.cells[0].textContent.trim(),
      low: stat(row, "low"),
      q1: stat(row, "q1"),
      median: stat(row, "median"),
      q3: stat(row, "q3"),
      high: stat(row, "high"),
      mean: stat(row, "mean"),
    }))
    .filter((box) => box.median !== null);
  if (!boxes.length) return null;
  const traces = boxes.map((box, index) => ({
    type: "box",
    name: box.name,
    x: [box.name],
    q1: [box.q1],
    median: [box.median],
    q3: [box.q3],
    lowerfence: [box.low],
    upperfence: [box.high],
    mean: box.mean === null ? undefined : [box.mean],
    boxmean: box.mean !== null,
    fillcolor: "rgba(255,255,255,0)",
    line: { color: cycle(COLOURS, index), width: 2 },
    showlegend: false,
    hoverinfo: "y",
  }));
  const format = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
  return {
    traces: traces,
    layout: baseLayout({
      height: 300,
      xaxis: { type: "category", automargin: true, title: axisTitle(figure, "x") },
      yaxis: { tickformat: figure.dataset.yFormat, title: axisTitle(figure, "y"), automargin: true, zeroline: false },
      annotations: boxes.map((box) => ({
        x: box.name,
        y: box.median,
        text: "median " + format(box.median),
        showarrow: false,
        xanchor: "left",
        xshift: 58,
        font: { size: 11 },
      })),
    }),
  };
}

function lineChart(figure, table) {
  const data = readSeries(table);
  if (!hasValues(data)) return null;
  return {
    traces: data.series.map((series, index) => ({
      type: "scatter",
      mode: "lines+markers",
      name: series.name,
      x: data.labels,
      y: series.values,
      line: { color: cycle(COLOURS, index), dash: cycle(DASHES, index), width: 2 },
      marker: { symbol: cycle(SYMBOLS, index), size: 7, color: cycle(COLOURS, index) },
      error_y: whiskers(series, cycle(COLOURS, index)),
      connectgaps: false,
    })),
    layout: baseLayout({
      height: 320,
      showlegend: true,
      legend: { orientation: "h", y: -0.25 },
      xaxis: { type: "category", automargin: true, title: axisTitle(figure, "x") },
      yaxis: { tickformat: figure.dataset.yFormat, rangemode: "tozero", automargin: true, title: axisTitle(figure, "y") },
    }),
  };
}

const KINDS = { bar: barChart, heatmap: heatmapChart, box: boxChart, line: lineChart };

function plotArea(figure, table) {
  let plot = figure.querySelector(".chart-plot");
  if (!plot) {
    plot = document.createElement("div");
    plot.className = "chart-plot";
    table.before(plot);
  }
  return plot;
}

function say(plot, text) {
  plot.textContent = "";
  const note = document.createElement("p");
  note.className = "muted small";
  note.textContent = text;
  plot.append(note);
}

export function drawChart(figure) {
  const table = figure.querySelector("table");
  const kind = KINDS[figure.dataset.chart];
  if (!table || !kind) throw new Error("drawChart: a figure needs data-chart (" + Object.keys(KINDS).join(", ") + ") and a table");
  const plot = plotArea(figure, table);
  const caption = figure.querySelector("figcaption");
  plot.setAttribute("role", "img");
  plot.setAttribute("aria-label", (caption ? caption.textContent.trim() + ": " : "") + "chart of the table below");
  if (!window.Plotly) {
    say(plot, "The chart library did not load; the table below holds every figure.");
    return;
  }
  const chart = kind(figure, table);
  if (!chart) {
    say(plot, "Nothing to draw: the table has no values.");
    return;
  }
  window.Plotly.newPlot(plot, chart.traces, chart.layout, CONFIG);
}

function csvField(text) {
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

export function csvText(table) {
  const rows = [headerCells(table).map((cell) => cell.textContent.trim())];
  const footer = table.tFoot ? Array.from(table.tFoot.rows) : [];
  bodyRows(table)
    .concat(footer)
    .forEach((row) => {
      rows.push(
        Array.from(row.cells).map((cell) =>
          cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim().replace(/\s+/g, " "),
        ),
      );
    });
  return rows.map((cells) => cells.map(csvField).join(",")).join("\r\n") + "\r\n";
}

function addCsvLink(table) {
  const link = document.createElement("a");
  link.className = "csv-link small";
  link.textContent = "Download CSV";
  link.download = table.dataset.csv;
  link.href = URL.createObjectURL(new Blob([csvText(table)], { type: "text/csv;charset=utf-8" }));
  const holder = document.createElement("p");
  holder.className = "table-actions";
  holder.append(link);
  table.after(holder);
}

export function renderCharts(root) {
  root.querySelectorAll("figure[data-chart]").forEach(drawChart);
  root.querySelectorAll("table[data-csv]").forEach(addCsvLink);
}
