FROM node:22-slim
# the app
WORKDIR /nodeexpress
COPY . .
RUN npm ci --omit=dev
EXPOSE 8080
CMD ["node", "app.js"]
