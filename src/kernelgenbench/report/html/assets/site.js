// Draws each plot from the JSON figure beside it; a heat-map cell opens its operator's page.
"use strict";
document.querySelectorAll("div.plot[data-figure]").forEach((div) => {
  const figure = JSON.parse(document.getElementById(div.dataset.figure).textContent);
  Plotly.newPlot(div, figure.data, figure.layout, { displaylogo: false, responsive: true }).then(() => {
    div.dataset.rendered = "true";
    div.on("plotly_click", (event) => {
      const point = event.points && event.points[0];
      const link = point && point.customdata;
      if (typeof link === "string" && /^ops\/[A-Za-z0-9_.-]+\.html$/.test(link)) {
        window.location.href = link;
      }
    });
  });
});
