// The app's JSON API from a page: the session's cookie and the page's CSRF token go along; an
// error answer becomes an Error with the server's message, its `fields` (name -> messages),
// its `status` and the whole `body` (a 409 carries what is stored now).

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

export async function api(method, url, body) {
  const headers = { Accept: "application/json", "X-CSRFToken": csrfToken() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, {
    method: method,
    credentials: "same-origin",
    headers: headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const error = new Error((data && data.message) || "The server answered " + response.status + ".");
    error.fields = (data && data.fields) || {};
    error.status = response.status;
    error.body = data;
    throw error;
  }
  return data;
}
